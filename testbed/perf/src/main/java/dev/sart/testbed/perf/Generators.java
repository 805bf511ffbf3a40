package dev.sart.testbed.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * The generator side: one BIRD with a {@code protocol bgp g<i>} per generator peer, each in its own
 * table filled by static protocols, so that a peer exports exactly its own routes. The sessions are
 * configured {@code disabled} and enabled together once everything else is up, which is the start
 * of the clock: parsing a config with a million static routes is not part of the measurement.
 *
 * <p>Routes are /32 blackholes from 10.0.0.0/8. They never reach a kernel: the target has no kernel
 * protocol / FIB (BIRD without a kernel protocol, FRR {@code bgpd -Z -n}, OpenBGPD {@code
 * fib-update no}, GoBGP and sartd without zebra or FIB).
 *
 * <p>Scenarios a, c, d: peer i announces its own block, 10 % of it from static protocol {@code
 * w<i>} (withdrawn and re-announced during churn), the rest from {@code s<i>}. Scenario b: every
 * peer announces the same prefixes; prefix k is in class k mod 4 (static protocol {@code
 * b<i>c<class>}) and the export filters make the decision process pick (all peers are in AS 65100,
 * so MED compares):
 *
 * <ul>
 *   <li>class 0: peer 0's AS_PATH is one longer, peer 1 wins on AS_PATH length;
 *   <li>class 1: peer 1's AS_PATH is one longer, peer 0 wins;
 *   <li>class 2: equal AS_PATH, peer 0 MED 20, peer 1 MED 10: peer 1 wins on MED;
 *   <li>class 3: all equal (MED 10): the tie-breakers decide (router id, or the older path for
 *       FRR);
 * </ul>
 *
 * peers beyond the second always carry a longer AS_PATH. Every route of peer i carries community
 * (65100, i), so the monitor can tell whose path the target chose.
 */
final class Generators {
  static final long AS = 65100;
  static final int BASE = 0x0A00_0000; // 10.0.0.0

  private Generators() {}

  /** The address of generator peer i on the generator–target link. */
  static String address(int peer) {
    return "198.51.100." + (10 + peer);
  }

  /**
   * The target's address for generator peer i: one per peer, because BIRD runs only one BGP
   * protocol per neighbour address and interface (the others stay Idle).
   */
  static String targetAddress(int peer) {
    return "198.51.100." + (130 + peer);
  }

  /** The /32 with index k of peer i (both from 0). */
  static int prefix(Scenario s, int peer, int k) {
    return BASE + (s.samePrefixes() ? k : peer * s.prefixesPerPeer() + k);
  }

  static String format(int address) {
    return (address >>> 24)
        + "."
        + ((address >>> 16) & 0xff)
        + "."
        + ((address >>> 8) & 0xff)
        + "."
        + (address & 0xff);
  }

  /**
   * The peer whose path must win for prefix index k in scenario b, or -1 when a tie-breaker
   * decides.
   */
  static int expectedWinner(int k) {
    return switch (k % 4) {
      case 0, 2 -> 1;
      case 1 -> 0;
      default -> -1;
    };
  }

  /**
   * BIRD's configuration for all generator peers of {@code s}, towards the target at {@code
   * target}.
   */
  static String config(Scenario s, long targetAs, int holdTime) {
    StringBuilder c = new StringBuilder(64 + s.peers() * s.prefixesPerPeer() * 32);
    c.append("router id 198.51.100.9;\n");
    c.append("log stderr { info, remote, warning, error, auth, fatal, bug };\n");
    c.append("protocol device { scan time 60; }\n");
    for (int i = 0; i < s.peers(); i++) {
      c.append("ipv4 table t").append(i).append(";\n");
    }
    for (int i = 0; i < s.peers(); i++) {
      if (s.addPath()) {
        // (e): the same prefixes from a static protocol per path; the export filter tells them
        // apart (community, and a longer AS_PATH on all but the first)
        for (int path = 0; path < s.pathsPerPeer(); path++) {
          staticProtocol(c, "e" + i + "p" + path, i, s, 0, 1, s.prefixesPerPeer());
        }
      } else if (s.samePrefixes()) {
        for (int cls = 0; cls < 4; cls++) {
          staticProtocol(c, "b" + i + "c" + cls, i, s, cls, 4, s.prefixesPerPeer());
        }
      } else {
        staticProtocol(c, "w" + i, i, s, 0, 1, s.churnPerPeer());
        staticProtocol(c, "s" + i, i, s, s.churnPerPeer(), 1, s.prefixesPerPeer());
      }
      c.append("protocol bgp g").append(i).append(" {\n");
      c.append("  disabled;\n");
      c.append("  local ").append(address(i)).append(" as ").append(AS).append(";\n");
      c.append("  neighbor ")
          .append(targetAddress(i))
          .append(" as ")
          .append(targetAs)
          .append(";\n");
      c.append("  hold time ").append(holdTime).append(";\n");
      c.append("  connect delay time 1;\n  connect retry time 1;\n  error wait time 1, 5;\n");
      c.append("  ipv4 {\n    table t").append(i).append(";\n    import none;\n");
      if (s.addPath()) {
        // RFC 7911: every route of the table, not only the best
        c.append("    add paths tx;\n");
        c.append("    export filter {\n");
        c.append("      bgp_community.add((").append(AS).append(", ").append(i).append("));\n");
        c.append("      if proto != \"e").append(i).append("p0\" then bgp_path.prepend(");
        c.append(AS).append(");\n");
        c.append("      accept;\n    };\n");
      } else if (s.samePrefixes()) {
        c.append("    export filter {\n");
        if (i >= 2) {
          c.append("      bgp_path.prepend(").append(AS).append(");\n");
        } else {
          c.append("      if proto = \"b")
              .append(i)
              .append("c")
              .append(i)
              .append("\" then bgp_path.prepend(")
              .append(AS)
              .append(");\n");
        }
        c.append("      bgp_med = 10;\n");
        if (i == 0) {
          c.append("      if proto = \"b0c2\" then bgp_med = 20;\n");
        }
        c.append("      bgp_community.add((").append(AS).append(", ").append(i).append("));\n");
        c.append("      accept;\n    };\n");
      } else {
        c.append("    export all;\n");
      }
      c.append("  };\n}\n");
    }
    return c.toString();
  }

  /**
   * A static protocol with the prefixes k = from, from + step, ... below {@code to} of peer {@code
   * table}.
   */
  private static void staticProtocol(
      StringBuilder c, String name, int table, Scenario s, int from, int step, int to) {
    c.append("protocol static ")
        .append(name)
        .append(" {\n  ipv4 { table t")
        .append(table)
        .append("; };\n");
    for (int k = from; k < to; k += step) {
      c.append("  route ").append(format(prefix(s, table, k))).append("/32 blackhole;\n");
    }
    c.append("}\n");
  }

  /** Names of the static protocols to disable to withdraw 10 % of each peer's routes. */
  static String churnPattern() {
    return "w*";
  }

  /** Patterns of every static protocol of a scenario (to withdraw everything). */
  static List<String> allStaticPatterns(Scenario s) {
    return s.addPath()
        ? List.of("e*")
        : s.samePrefixes() ? List.of("b*") : new ArrayList<>(List.of("w*", "s*"));
  }
}
