package dev.sart.bgp.rib;

import com.github.benmanes.caffeine.cache.Interner;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.ClusterList;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MpReachNlri;
import dev.sart.bgp.wire.MpUnreachNlri;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.NextHop;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.OriginatorId;
import dev.sart.bgp.wire.PathAttributes;
import java.util.Objects;

/**
 * The attributes of a path, interned: every path with the same attributes and next hop shares one
 * instance (routes from one UPDATE, and usually from one peer, have the same). Holds the wire
 * attributes without NEXT_HOP / MP_REACH / MP_UNREACH and the next hop on its own, plus the values
 * the decision process reads, computed once.
 */
public final class Attrs {
  private static final Interner<Attrs> INTERNER = Interner.newWeakInterner();

  private final PathAttributes attributes;
  private final MpNextHop nextHop;
  private final int hash;
  // decision process inputs (RFC 4271 §9.1.2.2), computed once
  final long localPref; // -1: absent
  final long med; // -1: absent
  final int origin;
  final int asPathLength;
  final long neighborAs; // first AS of the path, 0 for an empty path
  final int originatorId; // 0: absent
  final int clusterListLength;
  final boolean noExport;
  final boolean noAdvertise;
  final boolean noExportSubconfed;

  private Attrs(PathAttributes attributes, MpNextHop nextHop) {
    this.attributes = attributes;
    this.nextHop = nextHop;
    this.hash = 31 * attributes.hashCode() + Objects.hashCode(nextHop);
    this.localPref = attributes.find(LocalPref.class).map(LocalPref::value).orElse(-1L);
    this.med = attributes.find(MultiExitDisc.class).map(MultiExitDisc::value).orElse(-1L);
    this.origin = attributes.find(Origin.class).map(Origin::code).orElse(Origin.INCOMPLETE.code());
    AsPath path = attributes.find(AsPath.class).orElse(AsPath.EMPTY);
    this.asPathLength = path.pathLength();
    this.neighborAs = path.isEmpty() ? 0 : path.firstAs();
    this.originatorId = attributes.find(OriginatorId.class).map(OriginatorId::id).orElse(0);
    this.clusterListLength = attributes.find(ClusterList.class).map(ClusterList::size).orElse(0);
    Communities c = attributes.orNull(Communities.class);
    this.noExport = c != null && c.contains(Iana.WellKnownCommunity.NO_EXPORT);
    this.noAdvertise = c != null && c.contains(Iana.WellKnownCommunity.NO_ADVERTISE);
    this.noExportSubconfed = c != null && c.contains(Iana.WellKnownCommunity.NO_EXPORT_SUBCONFED);
  }

  /**
   * The interned attributes of a received or local path: NEXT_HOP, MP_REACH_NLRI and
   * MP_UNREACH_NLRI are taken out of {@code attributes}; {@code nextHop} is the path's next hop.
   */
  public static Attrs of(PathAttributes attributes, MpNextHop nextHop) {
    PathAttributes stripped =
        attributes
            .without(Iana.AttributeType.NEXT_HOP)
            .without(Iana.AttributeType.MP_REACH_NLRI)
            .without(Iana.AttributeType.MP_UNREACH_NLRI);
    return INTERNER.intern(new Attrs(stripped, nextHop));
  }

  /**
   * The next hop of an UPDATE for {@code family}: NEXT_HOP for IPv4 (or RFC 8950 MP_REACH), else
   * MP_REACH's.
   */
  public static MpNextHop nextHopOf(PathAttributes attributes, boolean ipv4Nlri) {
    MpReachNlri reach = attributes.orNull(MpReachNlri.class);
    if (!ipv4Nlri
        || (reach != null && reach.family().equals(dev.sart.bgp.wire.Family.IPV4_UNICAST))) {
      return reach == null ? null : reach.nextHop();
    }
    NextHop nh = attributes.orNull(NextHop.class);
    return nh == null ? null : new MpNextHop.V4(nh.address());
  }

  static boolean isMp(PathAttributes a) {
    return a.orNull(MpReachNlri.class) != null || a.orNull(MpUnreachNlri.class) != null;
  }

  /** ORIGIN code (0 IGP, 1 EGP, 2 INCOMPLETE). */
  public int origin() {
    return origin;
  }

  /** LOCAL_PREF, or -1 when absent. */
  public long localPref() {
    return localPref;
  }

  /** MULTI_EXIT_DISC, or -1 when absent. */
  public long med() {
    return med;
  }

  /** The attributes without the next hop. */
  public PathAttributes attributes() {
    return attributes;
  }

  public MpNextHop nextHop() {
    return nextHop;
  }

  public AsPath asPath() {
    return attributes.find(AsPath.class).orElse(AsPath.EMPTY);
  }

  /** The same attributes with another next hop, interned. */
  public Attrs withNextHop(MpNextHop nh) {
    return Objects.equals(nh, nextHop) ? this : INTERNER.intern(new Attrs(attributes, nh));
  }

  /** Other attributes, same next hop, interned. */
  public Attrs withAttributes(PathAttributes a) {
    return a.equals(attributes) ? this : of(a, nextHop);
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof Attrs a
            && hash == a.hash
            && attributes.equals(a.attributes)
            && Objects.equals(nextHop, a.nextHop));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "Attrs[" + attributes + " nextHop=" + nextHop + "]";
  }
}
