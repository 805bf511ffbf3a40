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
import java.util.List;

/** Hands what an UPDATE says to the RIB: the IPv4 fields and the MP_REACH/MP_UNREACH ones (RFC 4760). */
final class ReceivedUpdate {
  private ReceivedUpdate() {}

  static void apply(Update u, boolean treatAsWithdraw, RibPeer from, SessionOptions options, Rib rib) {
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
      announce(u.nlri(), nh == null ? null : new MpNextHop.V4(nh.address()), u, treatAsWithdraw, from, rib, withdrawn);
    }
    MpReachNlri reach = u.mpReach();
    if (reach != null && from.families().contains(reach.family())) {
      announce(reach.nlri(), reach.nextHop(), u, treatAsWithdraw, from, rib, withdrawn);
    }
    if (!withdrawn.prefixes.isEmpty()) {
      rib.update(from, withdrawn.prefixes, withdrawn.ids(), new ArrayList<>(0), null, null);
    }
  }

  private static void announce(Nlri nlri, MpNextHop nextHop, Update u, boolean treatAsWithdraw, RibPeer from, Rib rib,
      Prefixes withdrawn) {
    if (treatAsWithdraw || nextHop == null) {
      withdrawn.add(nlri); // RFC 7606 §2 treat-as-withdraw
      return;
    }
    Prefixes announced = new Prefixes();
    announced.add(nlri);
    rib.update(from, new ArrayList<>(0), null, announced.prefixes, announced.ids(), Attrs.of(u.attributes(), nextHop));
  }

  /** Prefixes with their ADD-PATH identifiers, in order. */
  private static final class Prefixes {
    final List<Prefix> prefixes = new ArrayList<>();
    int[] pathIds = new int[0];
    boolean withIds;

    void add(Nlri nlri) {
      switch (nlri) {
        case Ipv4Prefixes v4 -> {
          for (int i = 0; i < v4.size(); i++) {
            add(Prefix.v4(v4.address(i), v4.length(i)), v4.hasPathIds() ? v4.pathId(i) : 0, v4.hasPathIds());
          }
        }
        case Ipv6Prefixes v6 -> {
          for (int i = 0; i < v6.size(); i++) {
            add(Prefix.v6(v6.high(i), v6.low(i), v6.length(i)), v6.hasPathIds() ? v6.pathId(i) : 0, v6.hasPathIds());
          }
        }
        default -> { }
      }
    }

    private void add(Prefix p, int id, boolean hasId) {
      if (prefixes.size() == pathIds.length) {
        pathIds = java.util.Arrays.copyOf(pathIds, Math.max(8, pathIds.length * 2));
      }
      pathIds[prefixes.size()] = id;
      prefixes.add(p);
      withIds |= hasId;
    }

    int[] ids() {
      return withIds ? java.util.Arrays.copyOf(pathIds, prefixes.size()) : null;
    }
  }
}
