package dev.sart.bgp.rib;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.ClusterList;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.OriginatorId;
import dev.sart.bgp.wire.PathAttributes;

/**
 * What a path looks like when sent to a peer (RFC 4271 §5.1, §9.1.3, RFC 1997), or null when it
 * must not be sent there.
 */
final class Export {
  private Export() {}

  /** With the default of {@link dev.sart.bgp.policy.PeerPolicy#advertisePeerAs}: off. */
  static Attrs toPeer(Prefix prefix, Path path, RibPeer to, long localAs) {
    return toPeer(prefix, path, to, localAs, false);
  }

  static Attrs toPeer(Prefix prefix, Path path, RibPeer to, long localAs, boolean advertisePeerAs) {
    if (refusal(prefix, path, to, advertisePeerAs) != null) {
      return null;
    }
    Attrs a = path.attrs();
    PathAttributes attrs = a.attributes().forReadvertisement();
    MpNextHop nextHop = a.nextHop();
    MpNextHop self = prefix.isIpv4() ? to.nextHopSelfV4() : to.nextHopSelfV6();
    if (to.internal()) {
      // §5.1.5: LOCAL_PREF is sent to internal peers; §5.1.3: the next hop of an eBGP-learned
      // route is kept, ours is set for our own routes
      if (a.localPref < 0) {
        attrs = attrs.with(new LocalPref(100));
      }
      // §5.1.2: AS_PATH is well-known mandatory; our own routes carry an empty one inside the AS
      if (attrs.orNull(AsPath.class) == null) {
        attrs = attrs.with(AsPath.EMPTY);
      }
      if (!path.isLocal() && path.source().internal()) {
        // RFC 4456 §8: reflected (refusal let it through): ORIGINATOR_ID, the BGP Identifier of
        // the peer it came from, unless it has one; our CLUSTER_ID in front of the CLUSTER_LIST
        if (a.originatorId == 0) {
          attrs = attrs.with(new OriginatorId(path.source().routerId()));
        }
        int cluster = to.reflection().clusterId();
        ClusterList list = attrs.orNull(ClusterList.class);
        attrs = attrs.with(list == null ? ClusterList.of(cluster) : list.prepend(cluster));
      }
      if (path.isLocal()
          || nextHop == null
          || isUnspecified(nextHop)
          || to.reflection().nextHopSelf()) {
        nextHop = self;
      }
    } else {
      // §5.1.2: prepend our AS; §5.1.3: next hop self; §5.1.5: no LOCAL_PREF; §5.1.4: a MED
      // learned from another AS is not passed on; RFC 4456: ORIGINATOR_ID/CLUSTER_LIST stay inside
      AsPath path0 = a.asPath();
      attrs =
          attrs
              .with(path0.prepend(localAs))
              .without(Iana.AttributeType.LOCAL_PREF)
              .without(Iana.AttributeType.ORIGINATOR_ID)
              .without(Iana.AttributeType.CLUSTER_LIST);
      if (!path.isLocal()) {
        attrs = attrs.without(Iana.AttributeType.MULTI_EXIT_DISC);
      }
      nextHop = self;
    }
    if (nextHop == null) {
      return null; // no address of ours in this family towards the peer: cannot announce
    }
    return Attrs.of(attrs, nextHop);
  }

  /** Why a path is not sent to a peer by the rules of RFC 4271 and RFC 1997 (not the policy). */
  enum Refusal {
    FROM_THIS_PEER,
    FAMILY_NOT_NEGOTIATED,
    AS_PATH_LOOP,
    NO_ADVERTISE,
    IBGP_SPLIT_HORIZON,
    NO_NEXT_HOP
  }

  /** The first rule that keeps {@code path} from {@code to}, or null when none does. */
  static Refusal refusal(Prefix prefix, Path path, RibPeer to, boolean advertisePeerAs) {
    if (path.source() == to) {
      return Refusal.FROM_THIS_PEER;
    }
    if (!to.families().contains(prefix.family())) {
      return Refusal.FAMILY_NOT_NEGOTIATED;
    }
    Attrs a = path.attrs();
    // an external peer whose AS is in the path would drop the route as a loop (RFC 4271 §9.1.2):
    // not sent unless asked for (Junos' advertise-peer-as; GoBGP does not send it either)
    if (!to.internal() && !advertisePeerAs && a.asPath().contains(to.asn())) {
      return Refusal.AS_PATH_LOOP;
    }
    // RFC 1997: NO_ADVERTISE to no peer, NO_EXPORT(_SUBCONFED) not outside the AS (no
    // confederations here)
    if (a.noAdvertise || (!to.internal() && (a.noExport || a.noExportSubconfed))) {
      return Refusal.NO_ADVERTISE;
    }
    // RFC 4271 §9.1.1: iBGP-learned routes are not passed to other iBGP peers; RFC 4456 §6: a
    // reflector passes a client's routes to every internal peer, and a non-client's to its clients
    if (to.internal()
        && !path.isLocal()
        && path.source().internal()
        && !path.source().reflection().client()
        && !to.reflection().client()) {
      return Refusal.IBGP_SPLIT_HORIZON;
    }
    return null;
  }

  private static boolean isUnspecified(MpNextHop nh) {
    return switch (nh) {
      case MpNextHop.V4 v4 -> v4.address() == 0;
      case MpNextHop.V6 v6 -> v6.high() == 0 && v6.low() == 0;
      case MpNextHop.V6WithLinkLocal v6 -> v6.high() == 0 && v6.low() == 0;
      case MpNextHop.Opaque o -> false;
    };
  }
}
