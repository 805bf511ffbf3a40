package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The egress Service's {@code spec.sessionAffinity}: a client stays on one gateway (ClientIP). */
public enum SessionAffinity {
  @JsonProperty("ClientIP")
  CLIENT_IP,
  @JsonProperty("None")
  NONE
}
