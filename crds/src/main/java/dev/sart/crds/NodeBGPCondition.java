package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;

/** Whether the node's speaker runs with the NodeBGP's settings, and why. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeBGPCondition(@Required Status status, @Required Reason reason) {
  public enum Status {
    Available,
    Unavailable
  }

  public enum Reason {
    NotConfigured,
    Configured,
    InvalidConfiguration
  }
}
