package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How client pods reach an Egress: VXLAN (RFC 7348) or Foo-over-UDP with IPIP / IP6IP6 inside (as
 * coil). Both are UDP, so a Service can balance them.
 */
public enum TunnelMode {
  @JsonProperty("vxlan")
  VXLAN,
  @JsonProperty("fou")
  FOU
}
