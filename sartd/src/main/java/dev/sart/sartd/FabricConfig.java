package dev.sart.sartd;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Family;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A neighbour's data-centre fabric keys of the sartd YAML (issue 28): {@code add_path}, {@code
 * interface} and {@code remote_as} (unnumbered neighbours).
 */
final class FabricConfig {
  private FabricConfig() {}

  /** {@code add_path:}; a mistake names its key. Absent: {@link PeerConfig.AddPath#NONE}. */
  static PeerConfig.AddPath addPath(BgpConfigFile.AddPathDef a) {
    if (a == null) {
      return PeerConfig.AddPath.NONE;
    }
    int max = a.sendMax() == null ? 0 : a.sendMax();
    if (max < 0 || max > 255) {
      throw new IllegalArgumentException("add_path.send_max: " + max + " paths: 0 (all) or 1..255");
    }
    return new PeerConfig.AddPath(
        families("add_path.receive", a.receive()), families("add_path.send", a.send()), max);
  }

  /**
   * {@code interface} excludes {@code address}; {@code remote_as} (external, internal) excludes
   * {@code asn}.
   */
  static void checkUnnumbered(BgpConfigFile.Neighbor n) {
    if (n.interfaceName() != null && n.address() != null) {
      throw new IllegalArgumentException(
          "interface: an unnumbered neighbor learns its address; leave 'address' out");
    }
    if (n.interfaceName() != null && n.interfaceName().isBlank()) {
      throw new IllegalArgumentException("interface: an interface name, e.g. eth1");
    }
    if (n.remoteAs() != null) {
      if (!n.remoteAs().equals("external") && !n.remoteAs().equals("internal")) {
        throw new IllegalArgumentException(
            "remote_as: '" + n.remoteAs() + "' is not external or internal");
      }
      if (n.asn() != null) {
        throw new IllegalArgumentException(
            "remote_as: the AS is learned from the neighbor's OPEN; leave 'asn' out");
      }
    }
  }

  /** {@code interface} and {@code remote_as} into the builder (checked before). */
  static void unnumbered(BgpConfigFile.Neighbor n, PeerConfig.Builder b) {
    b.interfaceName(n.interfaceName());
    if (n.remoteAs() != null) {
      b.remoteAs(
          n.remoteAs().equals("external")
              ? PeerConfig.RemoteAs.EXTERNAL
              : PeerConfig.RemoteAs.INTERNAL);
    }
  }

  private static Set<Family> families(String key, List<String> names) {
    Set<Family> out = new HashSet<>();
    for (String f : names == null ? List.<String>of() : names) {
      out.add(
          switch (f.toLowerCase(Locale.ROOT)) {
            case "ipv4", "ipv4-unicast", "ipv4_unicast" -> Family.IPV4_UNICAST;
            case "ipv6", "ipv6-unicast", "ipv6_unicast" -> Family.IPV6_UNICAST;
            default ->
                throw new IllegalArgumentException(
                    key + ": unknown family '" + f + "' (ipv4, ipv6)");
          });
    }
    return out;
  }
}
