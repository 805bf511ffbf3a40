package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.SessionAffinityConfig;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.List;

/**
 * coil's Egress fields: {@code destinations} (CIDRs, IPv4 and IPv6) sent through the gateway,
 * {@code replicas} (default 1), the Deployment's {@code strategy}, the pods' {@code template}, the
 * Service's {@code sessionAffinity} (default ClientIP) and {@code sessionAffinityConfig}, {@code
 * fouSourcePortAuto} (FoU: the outer source port from the flow hash instead of the fixed port).
 *
 * <p>Ours: {@code tunnel} (vxlan or fou; unset: the egress pods probe their kernel and label
 * themselves with the mode they run, which the clients follow; {@link #tunnelOrDefault} is the
 * port's mode, VXLAN's), and {@code sourceAddress}, a static source address (KEP-0275) from an
 * egress pool.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EgressSpec(
    @Required
        @Size(min = 1, max = Limits.EGRESS_DESTINATIONS)
        @ValidationRule(
            value = "self.all(d, isCIDR(d))",
            message = "each destination must be a CIDR such as 0.0.0.0/0 or 2001:db8::/32")
        @ValidationRule(
            value = "self.all(d, !isCIDR(d) || cidr(d).masked() == cidr(d))",
            message = "each destination must be a network address with no host bits set")
        List<@Size(max = Limits.CIDR) String> destinations,
    @SpecReplicas @Min(0) @Max(1000) Integer replicas,
    DeploymentStrategy strategy,
    EgressPodTemplate template,
    SessionAffinity sessionAffinity,
    SessionAffinityConfig sessionAffinityConfig,
    Boolean fouSourcePortAuto,
    TunnelMode tunnel,
    EgressSourceAddress sourceAddress) {

  public EgressSpec(List<String> destinations, int replicas) {
    this(destinations, replicas, null, null, null, null, null, null, null);
  }

  public EgressSpec withSourceAddress(EgressSourceAddress a) {
    return new EgressSpec(
        destinations,
        replicas,
        strategy,
        template,
        sessionAffinity,
        sessionAffinityConfig,
        fouSourcePortAuto,
        tunnel,
        a);
  }

  public int replicasOrDefault() {
    return replicas == null ? 1 : replicas;
  }

  public SessionAffinity sessionAffinityOrDefault() {
    return sessionAffinity == null ? SessionAffinity.CLIENT_IP : sessionAffinity;
  }

  public TunnelMode tunnelOrDefault() {
    return tunnel == null ? TunnelMode.VXLAN : tunnel;
  }
}
