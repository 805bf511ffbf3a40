package dev.sart.bgp.peer;

import dev.sart.bgp.rib.Attrs;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ipv4Prefixes;
import dev.sart.bgp.wire.Ipv6Prefixes;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MpReachNlri;
import dev.sart.bgp.wire.MpUnreachNlri;
import dev.sart.bgp.wire.NextHop;
import dev.sart.bgp.wire.Nlri;
import dev.sart.bgp.wire.SessionOptions;
import dev.sart.bgp.wire.Update;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * Hands what an UPDATE says to the RIB: the IPv4 fields and the MP_REACH/MP_UNREACH ones (RFC
 * 4760).
 */
final class ReceivedUpdate {
  private ReceivedUpdate() {}

  static void apply(
      Update u, boolean treatAsWithdraw, RibPeer from, SessionOptions options, Rib rib) {
    Prefixes withdrawn = new Prefixes();
    if (from.families().contains(Family.IPV4_UNICAST)) {
      withdrawn.add(u.withdrawn());
    }
    MpUnreachNlri unreach = u.mpUnreach();
    if (unreach != null && from.families().contains(unreach.family())) {
      withdrawn.add(unreach.withdrawn());
    }
    if (!u.nlri().isEmpty() && from.families().contains(Family.IPV4_UNICAST)) {
      NextHop nh = u.attributes().orNull(NextHop.class);
      announce(
          u.nlri(),
          nh == null ? null : new MpNextHop.V4(nh.address()),
          u,
          treatAsWithdraw,
          from,
          rib,
          withdrawn);
    }
    MpReachNlri reach = u.mpReach();
    if (reach != null && from.families().contains(reach.family())) {
      announce(reach.nlri(), reach.nextHop(), u, treatAsWithdraw, from, rib, withdrawn);
    }
    if (!withdrawn.prefixes.isEmpty()) {
      rib.update(from, withdrawn.prefixes, withdrawn.ids(), new ArrayList<>(0), null, null);
    }
  }

  private static void announce(
      Nlri nlri,
      MpNextHop nextHop,
      Update u,
      boolean treatAsWithdraw,
      RibPeer from,
      Rib rib,
      Prefixes withdrawn) {
    if (treatAsWithdraw || nextHop == null) {
      withdrawn.add(nlri); // RFC 7606 §2 treat-as-withdraw
      return;
    }
    Prefixes announced = new Prefixes();
    announced.add(nlri);
    rib.update(
        from,
        new ArrayList<>(0),
        null,
        announced.prefixes,
        announced.ids(),
        Attrs.of(u.attributes(), nextHop));
  }

  /**
   * Prefixes with their ADD-PATH identifiers, in order. The list is sized for each NLRI before its
   * prefixes go in, and the identifiers are kept only when an NLRI has them: growing both one
   * prefix at a time was a tenth of what sartd allocated while it read bgperf b's tables.
   */
  private static final class Prefixes {
    final ArrayList<Prefix> prefixes = new ArrayList<>(0);

    /** null unless an NLRI had ADD-PATH identifiers (RFC 7911); 0 for the prefixes without. */
    int[] pathIds;

    void add(Nlri nlri) {
      switch (nlri) {
        case Ipv4Prefixes v4 -> {
          reserve(v4.size(), v4.hasPathIds());
          for (int i = 0; i < v4.size(); i++) {
            add(Prefix.v4(v4.address(i), v4.length(i)), v4.hasPathIds() ? v4.pathId(i) : 0);
          }
        }
        case Ipv6Prefixes v6 -> {
          reserve(v6.size(), v6.hasPathIds());
          for (int i = 0; i < v6.size(); i++) {
            add(Prefix.v6(v6.high(i), v6.low(i), v6.length(i)), v6.hasPathIds() ? v6.pathId(i) : 0);
          }
        }
        default -> {}
      }
    }

    private void reserve(int n, boolean ids) {
      int need = prefixes.size() + n;
      prefixes.ensureCapacity(need);
      if (pathIds == null && ids) {
        pathIds = new int[need];
      } else if (pathIds != null && pathIds.length < need) {
        pathIds = Arrays.copyOf(pathIds, Math.max(need, pathIds.length * 2));
      }
    }

    private void add(Prefix p, int id) {
      if (pathIds != null) {
        pathIds[prefixes.size()] = id;
      }
      prefixes.add(p);
    }

    int[] ids() {
      return pathIds == null ? null : Arrays.copyOf(pathIds, prefixes.size());
    }
  }
}
