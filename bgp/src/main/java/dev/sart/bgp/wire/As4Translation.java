package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_CONFED_SEQUENCE;
import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_CONFED_SET;
import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_SEQUENCE;

/**
 * RFC 6793 §4.2: between a NEW (4-octet) speaker and an OLD (2-octet) one. The records always hold
 * 4-octet AS numbers; on a 2-octet session the codec splits them into AS_PATH with AS_TRANS plus
 * AS4_PATH when sending, and merges them back when receiving.
 */
final class As4Translation {

  private As4Translation() {}

  /** The AS4_PATH and AS4_AGGREGATOR to send along with attributes to an OLD speaker. */
  record Pending(As4Path path, As4Aggregator aggregator) {
    void writeTo(SessionOptions options, WireWriter out) {
      if (path != null) {
        AttributeEncoder.encode(path, path.defaultFlags(), options, out);
      }
      if (aggregator != null) {
        AttributeEncoder.encode(aggregator, aggregator.defaultFlags(), options, out);
      }
    }
  }

  /**
   * RFC 6793 §4.2.2: AS4_PATH only when some AS number does not fit 2 octets, and without
   * confederation segments (§3); AS4_AGGREGATOR only when the aggregator's AS does not fit. Null
   * when neither is needed.
   */
  static Pending forOldSpeaker(PathAttributes attributes) {
    As4Path path = null;
    As4Aggregator aggregator = null;
    AsPath asPath = attributes.orNull(AsPath.class);
    if (asPath != null && !asPath.fitsTwoOctets()) {
      path = new As4Path(withoutConfederationSegments(asPath));
    }
    Aggregator agg = attributes.orNull(Aggregator.class);
    if (agg != null && agg.as() > 0xffff) {
      aggregator = new As4Aggregator(agg.as(), agg.address());
    }
    return path == null && aggregator == null ? null : new Pending(path, aggregator);
  }

  private static AsPath withoutConfederationSegments(AsPath path) {
    if (!path.hasConfederationSegments()) {
      return path;
    }
    int[] p = path.packed();
    AsPath.Builder b = AsPath.builder();
    for (int i = 0; i < p.length; ) {
      int type = p[i] >>> 16;
      int count = p[i] & 0xffff;
      if (type != AS_CONFED_SEQUENCE && type != AS_CONFED_SET) {
        b.append(type, p, i + 1, count);
      }
      i += 1 + count;
    }
    return b.build();
  }

  /**
   * RFC 6793 §4.2.3: the AS path of a route received from an OLD speaker. When AS_PATH has at least
   * as many AS numbers as AS4_PATH (counted as for route selection), the leading ones AS4_PATH
   * lacks are taken from AS_PATH and AS4_PATH follows; otherwise AS4_PATH is ignored.
   */
  static AsPath mergePath(AsPath asPath, AsPath as4Path) {
    int missing = asPath.pathLength() - as4Path.pathLength();
    if (missing < 0) {
      return asPath;
    }
    int[] p = asPath.packed();
    AsPath.Builder b = AsPath.builder();
    for (int i = 0; i < p.length; ) {
      int type = p[i] >>> 16;
      int count = p[i] & 0xffff;
      if (type == AS_CONFED_SEQUENCE || type == AS_CONFED_SET) {
        // they count nothing and AS4_PATH never has them (RFC 6793 §3): kept in place
        b.append(type, p, i + 1, count);
      } else if (missing == 0) {
        break;
      } else if (type == AS_SEQUENCE) {
        int take = Math.min(count, missing);
        b.append(type, p, i + 1, take);
        missing -= take;
      } else {
        b.append(type, p, i + 1, count); // an AS_SET counts as one
        missing -= 1;
      }
      i += 1 + count;
    }
    // the first AS4_PATH segment continues a sequence taken from AS_PATH; the others are
    // copied as they are
    int[] q = as4Path.packed();
    for (int i = 0; i < q.length; ) {
      int count = q[i] & 0xffff;
      if (i == 0) {
        b.append(q[i] >>> 16, q, i + 1, count);
      } else {
        b.segment(q[i] >>> 16, q, i + 1, count);
      }
      i += 1 + count;
    }
    return b.build();
  }
}
