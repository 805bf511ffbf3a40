package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a pool or block hands out: load-balancer addresses, pod addresses, or static egress source
 * addresses that an {@link Egress} claims (ours; sart has no egress).
 */
public enum AddressType {
  @JsonProperty("service")
  SERVICE,
  @JsonProperty("pod")
  POD,
  @JsonProperty("egress")
  EGRESS
}
