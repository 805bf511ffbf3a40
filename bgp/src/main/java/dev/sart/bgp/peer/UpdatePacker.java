package dev.sart.bgp.peer;

import dev.sart.bgp.rib.AdjRibOut;
import dev.sart.bgp.rib.Attrs;
import dev.sart.bgp.rib.PathKey;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ipv4Prefixes;
import dev.sart.bgp.wire.Ipv6Prefixes;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MpReachNlri;
import dev.sart.bgp.wire.MpUnreachNlri;
import dev.sart.bgp.wire.NextHop;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.bgp.wire.Update;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a drained Adj-RIB-Out batch into as few UPDATEs as fit the session's maximum message size:
 * withdrawals together, announcements grouped by attribute set (RFC 4271 §4.3, §9.2).
 */
final class UpdatePacker {
  private UpdatePacker() {}

  static List<Update> pack(AdjRibOut.Batch batch, BgpCodec codec, List<Family> negotiatedFamilies) {
    int max = codec.options().maxMessageLength();
    List<Update> out = new ArrayList<>();
    List<Prefix> w4 =
        new ArrayList<>(batch.withdraw().size()); // sized for the usual case, all IPv4
    List<Prefix> w6 = new ArrayList<>();
    for (Prefix p : batch.withdraw()) {
      (p.isIpv4() ? w4 : w6).add(p);
    }
    // RFC 4271 §4.3: 19 header + 2 withdrawn length + 2 attribute length
    for (List<Prefix> chunk : chunks(w4, max - 23)) {
      out.add(new Update(v4(chunk), PathAttributes.EMPTY, Ipv4Prefixes.EMPTY));
    }
    // MP_UNREACH_NLRI: 4 attribute header (extended length) + 3 AFI/SAFI
    for (List<Prefix> chunk : chunks(w6, max - 23 - 7)) {
      out.add(
          new Update(
              Ipv4Prefixes.EMPTY,
              PathAttributes.of(new MpUnreachNlri(Family.IPV6_UNICAST, v6(chunk))),
              Ipv4Prefixes.EMPTY));
    }
    for (Map.Entry<Attrs, List<Prefix>> e : batch.announce().entrySet()) {
      Attrs a = e.getKey();
      List<Prefix> prefixes = e.getValue();
      if (prefixes.getFirst().isIpv4() && a.nextHop() instanceof MpNextHop.V4 nh) {
        PathAttributes attrs = a.attributes().with(new NextHop(nh.address()));
        int base = codec.encode(new Update(Ipv4Prefixes.EMPTY, attrs, Ipv4Prefixes.EMPTY)).length;
        for (List<Prefix> chunk : chunks(prefixes, max - base)) {
          out.add(new Update(Ipv4Prefixes.EMPTY, attrs, v4(chunk)));
        }
      } else {
        Family f = prefixes.getFirst().family();
        PathAttributes empty =
            a.attributes()
                .with(
                    new MpReachNlri(
                        f,
                        a.nextHop(),
                        f.equals(Family.IPV4_UNICAST) ? Ipv4Prefixes.EMPTY : Ipv6Prefixes.EMPTY));
        // +1: the attribute may need the extended length once prefixes are in
        int base =
            codec.encode(new Update(Ipv4Prefixes.EMPTY, empty, Ipv4Prefixes.EMPTY)).length + 1;
        for (List<Prefix> chunk : chunks(prefixes, max - base)) {
          PathAttributes attrs =
              a.attributes()
                  .with(
                      new MpReachNlri(
                          f, a.nextHop(), f.equals(Family.IPV4_UNICAST) ? v4(chunk) : v6(chunk)));
          out.add(new Update(Ipv4Prefixes.EMPTY, attrs, Ipv4Prefixes.EMPTY));
        }
      }
    }
    packPaths(batch, codec, max, out);
    if (batch.endOfRib()) {
      for (Family f : negotiatedFamilies) {
        out.add(Update.endOfRib(f));
      }
    }
    return out;
  }

  /**
   * RFC 7911 §3: the paths of ADD-PATH families, each NLRI with its Path Identifier; the
   * announcements before the withdrawals, so that a peer replacing one path by another never has
   * none in between.
   */
  private static void packPaths(AdjRibOut.Batch batch, BgpCodec codec, int max, List<Update> out) {
    for (Map.Entry<Attrs, List<PathKey>> e : batch.announcePaths().entrySet()) {
      Attrs a = e.getKey();
      List<PathKey> paths = e.getValue();
      Family f = paths.getFirst().prefix().family();
      if (f.equals(Family.IPV4_UNICAST) && a.nextHop() instanceof MpNextHop.V4 nh) {
        PathAttributes attrs = a.attributes().with(new NextHop(nh.address()));
        int base = codec.encode(new Update(Ipv4Prefixes.EMPTY, attrs, Ipv4Prefixes.EMPTY)).length;
        for (List<PathKey> chunk : pathChunks(paths, max - base)) {
          out.add(new Update(Ipv4Prefixes.EMPTY, attrs, v4Paths(chunk)));
        }
      } else {
        PathAttributes empty =
            a.attributes()
                .with(
                    new MpReachNlri(
                        f,
                        a.nextHop(),
                        f.equals(Family.IPV4_UNICAST) ? Ipv4Prefixes.EMPTY : Ipv6Prefixes.EMPTY));
        int base =
            codec.encode(new Update(Ipv4Prefixes.EMPTY, empty, Ipv4Prefixes.EMPTY)).length + 1;
        for (List<PathKey> chunk : pathChunks(paths, max - base)) {
          PathAttributes attrs =
              a.attributes()
                  .with(
                      new MpReachNlri(
                          f,
                          a.nextHop(),
                          f.equals(Family.IPV4_UNICAST) ? v4Paths(chunk) : v6Paths(chunk)));
          out.add(new Update(Ipv4Prefixes.EMPTY, attrs, Ipv4Prefixes.EMPTY));
        }
      }
    }
    List<PathKey> w4 = new ArrayList<>();
    List<PathKey> w6 = new ArrayList<>();
    for (PathKey k : batch.withdrawPaths()) {
      (k.prefix().isIpv4() ? w4 : w6).add(k);
    }
    for (List<PathKey> chunk : pathChunks(w4, max - 23)) {
      out.add(new Update(v4Paths(chunk), PathAttributes.EMPTY, Ipv4Prefixes.EMPTY));
    }
    for (List<PathKey> chunk : pathChunks(w6, max - 23 - 7)) {
      out.add(
          new Update(
              Ipv4Prefixes.EMPTY,
              PathAttributes.of(new MpUnreachNlri(Family.IPV6_UNICAST, v6Paths(chunk))),
              Ipv4Prefixes.EMPTY));
    }
  }

  /** As {@link #chunks}, with the 4 octets of each Path Identifier (RFC 7911 §3). */
  private static List<List<PathKey>> pathChunks(List<PathKey> paths, int budget) {
    List<List<PathKey>> chunks = new ArrayList<>(1);
    int from = 0;
    int used = 0;
    for (int i = 0; i < paths.size(); i++) {
      int size = 5 + (paths.get(i).prefix().length() + 7) / 8;
      if (used + size > budget && i > from) {
        chunks.add(paths.subList(from, i));
        from = i;
        used = 0;
      }
      used += size;
    }
    if (paths.size() > from) {
      chunks.add(paths.subList(from, paths.size()));
    }
    return chunks;
  }

  private static Ipv4Prefixes v4Paths(List<PathKey> ks) {
    Ipv4Prefixes.Builder b = Ipv4Prefixes.builderWithPathIds();
    for (PathKey k : ks) {
      b.add(k.pathId(), k.prefix().v4Address(), k.prefix().length());
    }
    return b.build();
  }

  private static Ipv6Prefixes v6Paths(List<PathKey> ks) {
    Ipv6Prefixes.Builder b = Ipv6Prefixes.builderWithPathIds();
    for (PathKey k : ks) {
      b.add(k.pathId(), k.prefix().high(), k.prefix().low(), k.prefix().length());
    }
    return b.build();
  }

  /**
   * Splits prefixes so that each chunk's NLRI encoding fits {@code budget} bytes (RFC 4271 §4.3).
   * The chunks are views of {@code prefixes}, which must not change while they are used.
   */
  private static List<List<Prefix>> chunks(List<Prefix> prefixes, int budget) {
    List<List<Prefix>> chunks = new ArrayList<>(1);
    int from = 0;
    int used = 0;
    for (int i = 0; i < prefixes.size(); i++) {
      int size = 1 + (prefixes.get(i).length() + 7) / 8;
      if (used + size > budget && i > from) {
        chunks.add(prefixes.subList(from, i));
        from = i;
        used = 0;
      }
      used += size;
    }
    if (prefixes.size() > from) {
      chunks.add(prefixes.subList(from, prefixes.size()));
    }
    return chunks;
  }

  private static Ipv4Prefixes v4(List<Prefix> ps) {
    Ipv4Prefixes.Builder b = Ipv4Prefixes.builder();
    for (Prefix p : ps) {
      b.add(p.v4Address(), p.length());
    }
    return b.build();
  }

  private static Ipv6Prefixes v6(List<Prefix> ps) {
    Ipv6Prefixes.Builder b = Ipv6Prefixes.builder();
    for (Prefix p : ps) {
      b.add(p.high(), p.low(), p.length());
    }
    return b.build();
  }
}
