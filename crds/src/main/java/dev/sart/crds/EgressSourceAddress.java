package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * The static source address of an Egress (KEP-0275), claimed from {@code pool}, an AddressPool of
 * {@code type: egress} whose {@code allowedNamespaces} lists the Egress's namespace. {@code
 * address} asks for one address of that pool (default: the next free one). {@code ports}: the
 * reverse path.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EgressSourceAddress(
    @Required @Size(max = Limits.NAME) String pool,
    @ValidationRule(value = "isIP(self)", message = "address must be an IPv4 or IPv6 address")
        @Size(max = Limits.IP)
        String address,
    @Size(max = Limits.EGRESS_PORTS) List<EgressPort> ports) {

  public EgressSourceAddress(String pool) {
    this(pool, null, null);
  }

  public List<EgressPort> portsOrEmpty() {
    return ports == null ? List.of() : ports;
  }
}
