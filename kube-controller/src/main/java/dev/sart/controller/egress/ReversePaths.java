package dev.sart.controller.egress;

import dev.sart.crds.EgressPort;
import dev.sart.crds.EgressSourceAddress;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Service;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * KEP-0275's reverse path checked against the Services it names. The egress pod forwards what
 * reaches the static address on a mapped port to the Service's ClusterIP of the same family; there
 * is no NAT46/64, so a mapping to a Service with no ClusterIP of the address's family cannot be
 * applied. Rather than drop it in silence, the Egress says so ({@code status.message} and a Warning
 * Event naming the field).
 */
final class ReversePaths {
  /** The field every refusal names first. */
  static final String FIELD = "spec.sourceAddress.ports[";

  private ReversePaths() {}

  /**
   * Why a mapping of {@code a} cannot be applied with {@code address}, or null when each one can
   * (or names a Service not there yet: the gateway applies it when it comes).
   *
   * @param services a Service of the Egress's namespace by name, or null
   */
  static String refused(
      EgressSourceAddress a, InetAddress address, Function<String, Service> services) {
    List<EgressPort> ports = a.portsOrEmpty();
    String family = address instanceof Inet6Address ? "IPv6" : "IPv4";
    for (int i = 0; i < ports.size(); i++) {
      Service s = services.apply(ports.get(i).service());
      if (s == null || s.getSpec() == null) {
        continue;
      }
      List<String> families = families(s);
      if (!families.isEmpty() && !families.contains(family)) {
        return FIELD
            + i
            + "]: Service "
            + ports.get(i).service()
            + " has no "
            + family
            + " ClusterIP (it has "
            + String.join(", ", families)
            + ") and the static address "
            + Ip.format(address)
            + " is "
            + family
            + ": a mapping to the other family (NAT46/64) is not supported, so it is not applied";
      }
    }
    return null;
  }

  /** The families of a Service's ClusterIPs; empty for a headless Service or one not given any. */
  static List<String> families(Service s) {
    List<String> ips = new ArrayList<>();
    if (s.getSpec().getClusterIPs() != null) {
      ips.addAll(s.getSpec().getClusterIPs());
    } else if (s.getSpec().getClusterIP() != null) {
      ips.add(s.getSpec().getClusterIP());
    }
    List<String> out = new ArrayList<>();
    for (String ip : ips) {
      if (ip == null || ip.isEmpty() || ip.equals("None")) {
        continue;
      }
      String f = ip.indexOf(':') >= 0 ? "IPv6" : "IPv4";
      if (!out.contains(f)) {
        out.add(f);
      }
    }
    if (out.isEmpty() && ips.isEmpty() && s.getSpec().getIpFamilies() != null) {
      out.addAll(s.getSpec().getIpFamilies());
    }
    return out;
  }
}
