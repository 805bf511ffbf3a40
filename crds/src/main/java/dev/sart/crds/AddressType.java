package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a pool or block hands out: load-balancer addresses or pod addresses. */
public enum AddressType {
  @JsonProperty("service")
  SERVICE,
  @JsonProperty("pod")
  POD
}
