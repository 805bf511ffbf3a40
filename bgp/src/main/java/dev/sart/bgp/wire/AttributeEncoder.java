package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.AttributeFlag.EXTENDED_LENGTH;

/**
 * Path attributes onto the wire (RFC 4271 §4.3), narrowing AS numbers for 2-octet sessions and
 * adding AS4_PATH/AS4_AGGREGATOR for them (RFC 6793 §4.2.2).
 */
final class AttributeEncoder {

  private AttributeEncoder() {}

  static void encodeAll(PathAttributes attributes, SessionOptions options, WireWriter out) {
    As4Translation.Pending as4 =
        options.fourOctetAs() ? null : As4Translation.forOldSpeaker(attributes);
    for (int i = 0; i < attributes.size(); i++) {
      PathAttribute a = attributes.get(i);
      if (a instanceof As4Path || a instanceof As4Aggregator) {
        // RFC 6793 §4.1/§4.2.2: never to a NEW speaker; for an OLD one they are regenerated below
        continue;
      }
      if (as4 != null && a.typeCode() > Iana.AttributeType.AS4_AGGREGATOR) {
        as4.writeTo(options, out);
        as4 = null;
      }
      encode(a, attributes.flags(i), options, out);
    }
    if (as4 != null) {
      as4.writeTo(options, out);
    }
  }

  /**
   * RFC 4271 §4.3: flags, type, 1- or 2-octet length, value. The Extended Length bit is set when
   * the value needs it, and kept when the flags already had it.
   */
  static void encode(PathAttribute a, int flags, SessionOptions options, WireWriter out) {
    int length = valueLength(a, options);
    if (length > 0xffff) {
      throw new IllegalArgumentException("attribute " + a.typeCode() + " longer than 65535 octets");
    }
    boolean extended = length > 255 || (flags & EXTENDED_LENGTH) != 0;
    out.u8((flags & 0xe0) | (extended ? EXTENDED_LENGTH : 0));
    out.u8(a.typeCode());
    if (extended) {
      out.u16(length);
    } else {
      out.u8(length);
    }
    int start = out.length();
    writeValue(a, options, out);
    assert out.length() - start == length : "length of attribute " + a.typeCode();
  }

  private static int asSize(SessionOptions options) {
    return options.fourOctetAs() ? 4 : 2;
  }

  static int valueLength(PathAttribute a, SessionOptions options) {
    return switch (a) {
      case Origin o -> 1;
      case AsPath p -> asPathLength(p, asSize(options));
      case NextHop n -> 4;
      case MultiExitDisc m -> 4;
      case LocalPref l -> 4;
      case AtomicAggregate x -> 0;
      case Aggregator g -> 2 + asSize(options) + 2;
      case Communities c -> 4 * c.size();
      case OriginatorId o -> 4;
      case ClusterList c -> 4 * c.size();
      case MpReachNlri r -> 5 + r.nextHop().length() + nlriLength(r.family(), r.nlri(), options);
      case MpUnreachNlri u -> 3 + nlriLength(u.family(), u.withdrawn(), options);
      case ExtendedCommunities e -> 8 * e.size();
      case As4Path p -> asPathLength(p.path(), 4);
      case As4Aggregator g -> 8;
      case LargeCommunities l -> 12 * l.size();
      case OnlyToCustomer o -> 4;
      case UnknownAttribute u -> u.value().length();
    };
  }

  private static int asPathLength(AsPath path, int asSize) {
    int[] p = path.packed();
    int length = 0;
    for (int i = 0; i < p.length; ) {
      int count = p[i] & 0xffff;
      length += 2 + asSize * count;
      i += 1 + count;
    }
    return length;
  }

  private static int nlriLength(Family family, Nlri nlri, SessionOptions options) {
    boolean pathIds = options.addPathSend().contains(family);
    return switch (nlri) {
      case Ipv4Prefixes p -> NlriCodec.encodedLength(p, pathIds);
      case Ipv6Prefixes p -> NlriCodec.encodedLength(p, pathIds);
      case OpaqueNlri o -> o.bytes().length();
    };
  }

  private static void writeValue(PathAttribute a, SessionOptions options, WireWriter out) {
    switch (a) {
      case Origin o -> out.u8(o.code());
      case AsPath p -> writeAsPath(p, asSize(options), out);
      case NextHop n -> out.u32(n.address());
      case MultiExitDisc m -> out.u32((int) m.value());
      case LocalPref l -> out.u32((int) l.value());
      case AtomicAggregate x -> {}
      case Aggregator g -> {
        if (options.fourOctetAs()) {
          out.u32((int) g.as());
        } else {
          out.u16(g.as() > 0xffff ? Iana.AS_TRANS : (int) g.as());
        }
        out.u32(g.address());
      }
      case Communities c -> {
        for (int v : c.values()) {
          out.u32(v);
        }
      }
      case OriginatorId o -> out.u32(o.id());
      case ClusterList c -> {
        for (int v : c.ids()) {
          out.u32(v);
        }
      }
      case MpReachNlri r -> {
        out.u16(r.family().afi());
        out.u8(r.family().safi());
        out.u8(r.nextHop().length());
        writeNextHop(r.nextHop(), out);
        out.u8(0); // RFC 4760 §3: Reserved
        writeNlri(r.family(), r.nlri(), options, out);
      }
      case MpUnreachNlri u -> {
        out.u16(u.family().afi());
        out.u8(u.family().safi());
        writeNlri(u.family(), u.withdrawn(), options, out);
      }
      case ExtendedCommunities e -> {
        for (long v : e.values()) {
          out.u64(v);
        }
      }
      case As4Path p -> writeAsPath(p.path(), 4, out);
      case As4Aggregator g -> {
        out.u32((int) g.as());
        out.u32(g.address());
      }
      case LargeCommunities l -> {
        for (int v : l.values()) {
          out.u32(v);
        }
      }
      case OnlyToCustomer o -> out.u32((int) o.as());
      case UnknownAttribute u -> u.value().writeTo(out);
    }
  }

  /** RFC 6793 §4.2.2: on a 2-octet session an AS number that does not fit becomes AS_TRANS. */
  private static void writeAsPath(AsPath path, int asSize, WireWriter out) {
    int[] p = path.packed();
    for (int i = 0; i < p.length; ) {
      int count = p[i] & 0xffff;
      out.u8(p[i] >>> 16);
      out.u8(count);
      for (int k = 1; k <= count; k++) {
        int as = p[i + k];
        if (asSize == 4) {
          out.u32(as);
        } else {
          out.u16((as & 0xffff_0000) != 0 ? Iana.AS_TRANS : as);
        }
      }
      i += 1 + count;
    }
  }

  static void writeNextHop(MpNextHop nextHop, WireWriter out) {
    switch (nextHop) {
      case MpNextHop.V4 v -> out.u32(v.address());
      case MpNextHop.V6 v -> {
        out.u64(v.high());
        out.u64(v.low());
      }
      case MpNextHop.V6WithLinkLocal v -> {
        out.u64(v.high());
        out.u64(v.low());
        out.u64(v.linkLocalHigh());
        out.u64(v.linkLocalLow());
      }
      case MpNextHop.Opaque o -> o.bytes().writeTo(out);
    }
  }

  private static void writeNlri(Family family, Nlri nlri, SessionOptions options, WireWriter out) {
    boolean pathIds = options.addPathSend().contains(family);
    switch (nlri) {
      case Ipv4Prefixes p -> NlriCodec.encode(p, pathIds, out);
      case Ipv6Prefixes p -> NlriCodec.encode(p, pathIds, out);
      case OpaqueNlri o -> o.bytes().writeTo(out);
    }
  }
}
