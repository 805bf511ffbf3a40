package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The node's router id: its InternalIP ({@code internalAddress}, IPv4), the node label {@code
 * sart.terassyi.net/router-id}, or the fixed {@code routerId}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.from != 'routerId' || has(self.routerId)",
    message = "from: routerId needs routerId",
    fieldPath = ".routerId")
public record RouterIdSelector(
    @Required From from,
    @ValidationRule(
            value = "isIP(self) && ip(self).family() == 4",
            message = "routerId must be an IPv4 address (RFC 6286: a 4-octet BGP Identifier)")
        @Size(max = 15)
        String routerId) {
  public enum From {
    @JsonProperty("internalAddress")
    INTERNAL_ADDRESS,
    @JsonProperty("label")
    LABEL,
    @JsonProperty("routerId")
    ROUTER_ID
  }
}
