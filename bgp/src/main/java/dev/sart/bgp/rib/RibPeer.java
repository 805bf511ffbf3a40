package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.MpNextHop;
import java.net.InetAddress;
import java.util.Set;

/**
 * What the RIB knows of an Established peer: the values best path and export need, and its
 * Adj-RIB-Out. Created when the session is established, replaced when it comes up again.
 *
 * @param id unique while the RIB lives (0 is {@link #LOCAL})
 * @param address the peer's address
 * @param asn the peer's AS
 * @param routerId the peer's BGP Identifier
 * @param internal iBGP (same AS as ours)
 * @param nextHopSelfV4 our address to put in NEXT_HOP towards this peer (IPv4), or null
 * @param nextHopSelfV6 our IPv6 next hop towards this peer (global, with link-local when known), or
 *     null
 * @param families the families negotiated
 * @param out the peer's Adj-RIB-Out, or null for {@link #LOCAL}
 * @param counters the peer's prefix counts, which the RIB keeps up to date (shared by its sessions)
 * @param reflection route reflection (RFC 4456) towards and from this peer
 */
public record RibPeer(
    int id,
    InetAddress address,
    long asn,
    int routerId,
    boolean internal,
    MpNextHop nextHopSelfV4,
    MpNextHop nextHopSelfV6,
    Set<Family> families,
    AdjRibOut out,
    PrefixCounters counters,
    Reflection reflection) {

  /** The pseudo-peer of locally originated paths. */
  public static final RibPeer LOCAL = new RibPeer(0, null, 0, 0, true, null, null, Set.of(), null);

  public RibPeer {
    families = Set.copyOf(families);
    if (reflection == null) {
      reflection = Reflection.NONE;
    }
  }

  /** Without route reflection. */
  public RibPeer(
      int id,
      InetAddress address,
      long asn,
      int routerId,
      boolean internal,
      MpNextHop nextHopSelfV4,
      MpNextHop nextHopSelfV6,
      Set<Family> families,
      AdjRibOut out,
      PrefixCounters counters) {
    this(
        id,
        address,
        asn,
        routerId,
        internal,
        nextHopSelfV4,
        nextHopSelfV6,
        families,
        out,
        counters,
        Reflection.NONE);
  }

  /** A peer whose prefix counts nobody reads (tests, {@link #LOCAL}). */
  public RibPeer(
      int id,
      InetAddress address,
      long asn,
      int routerId,
      boolean internal,
      MpNextHop nextHopSelfV4,
      MpNextHop nextHopSelfV6,
      Set<Family> families,
      AdjRibOut out) {
    this(
        id,
        address,
        asn,
        routerId,
        internal,
        nextHopSelfV4,
        nextHopSelfV6,
        families,
        out,
        out == null ? new PrefixCounters() : out.counters(),
        Reflection.NONE);
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return id;
  }

  @Override
  public String toString() {
    return this == LOCAL
        ? "local"
        : "peer " + id + " " + (address == null ? "" : address.getHostAddress());
  }
}
