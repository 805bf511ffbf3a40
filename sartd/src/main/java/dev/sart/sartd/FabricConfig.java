package dev.sart.sartd;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Family;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** A neighbour's data-centre fabric keys of the sartd YAML (issue 28): {@code add_path}. */
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
