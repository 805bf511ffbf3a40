package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;

/** The session state as the speaker reports it (RFC 4271 §8.2.2 states, plus Unknown). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BGPPeerCondition(@Required Status status, @Required String reason) {
  public enum Status {
    Unknown,
    Idle,
    Active,
    Connect,
    OpenSent,
    OpenConfirm,
    Established
  }
}
