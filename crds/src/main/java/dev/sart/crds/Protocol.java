package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The address family of an advertised prefix. */
public enum Protocol {
  @JsonProperty("ipv4")
  IPV4,
  @JsonProperty("ipv6")
  IPV6
}
