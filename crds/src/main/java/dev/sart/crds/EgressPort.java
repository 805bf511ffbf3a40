package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/**
 * KEP-0275's reverse path: traffic from outside to the static source address on {@code port}
 * ({@code protocol}) goes to the Service {@code service} (in the Egress's namespace) on {@code
 * servicePort} (default: {@code port}). Nothing else sent to the address is let in.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EgressPort(
    @Pattern("^(TCP|UDP)$") String protocol,
    @Required @Min(1) @Max(65535) Integer port,
    @Required @Size(max = Limits.LABEL_VALUE) String service,
    @Min(1) @Max(65535) Integer servicePort) {

  /** {@code protocol} with its default (TCP). */
  public String protocolOrTcp() {
    return protocol == null ? "TCP" : protocol;
  }

  /** {@code servicePort} with its default ({@code port}). */
  public int servicePortOrPort() {
    return servicePort == null ? port : servicePort;
  }
}
