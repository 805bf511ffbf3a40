package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_CONFED_SET;
import static dev.sart.bgp.wire.Iana.AsPathSegmentType.AS_SET;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.ATTRIBUTE_LENGTH_ERROR;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.INVALID_ORIGIN_ATTRIBUTE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.MALFORMED_AS_PATH;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.OPTIONAL_ATTRIBUTE_ERROR;
import static dev.sart.bgp.wire.UpdateError.Action.AFI_SAFI_DISABLE;
import static dev.sart.bgp.wire.UpdateError.Action.ATTRIBUTE_DISCARD;
import static dev.sart.bgp.wire.UpdateError.Action.SESSION_RESET;
import static dev.sart.bgp.wire.UpdateError.Action.TREAT_AS_WITHDRAW;

import dev.sart.bgp.wire.Iana.AttributeType;

/**
 * The value of each known attribute, checked as RFC 7606 §7 says (cited per case). A malformed
 * value is reported to the {@link UpdateDecoder} and yields null.
 */
final class AttributeValues {

  private AttributeValues() {}

  /** RFC 7606 §7: how a malformed attribute of each type is handled. */
  static UpdateError.Action malformedAction(int type) {
    return switch (type) {
      // §7.6, §7.7; RFC 6793 §6 for AS4_PATH and AS4_AGGREGATOR
      case AttributeType.ATOMIC_AGGREGATE,
          AttributeType.AGGREGATOR,
          AttributeType.AS4_PATH,
          AttributeType.AS4_AGGREGATOR ->
          ATTRIBUTE_DISCARD;
      // §7.11, §7.12 (and RFC 4760 §7)
      case AttributeType.MP_REACH_NLRI, AttributeType.MP_UNREACH_NLRI -> AFI_SAFI_DISABLE;
      default -> TREAT_AS_WITHDRAW;
    };
  }

  /**
   * Reports the attribute in {@code b[start, end)} as malformed; its value starts at {@code
   * valueStart}.
   */
  static void malformed(UpdateDecoder u, int type, int subcode, int start, int end, String reason) {
    byte[] b = u.b;
    UpdateError.Action action = malformedAction(type);
    Family family = null;
    if (action == AFI_SAFI_DISABLE) {
      int valueStart = start + ((b[start] & Iana.AttributeFlag.EXTENDED_LENGTH) != 0 ? 4 : 3);
      if (end - valueStart >= 3) {
        family = Family.of(Wire.u16(b, valueStart), Wire.u8(b, valueStart + 2));
      } else {
        action = SESSION_RESET; // not even the family can be read
      }
    }
    u.error(action, type, subcode, u.attributeBytes(start, end), family, reason);
  }

  private static PathAttribute bad(
      UpdateDecoder u, int type, int subcode, int start, int end, String reason) {
    malformed(u, type, subcode, start, end, reason);
    return null;
  }

  private static PathAttribute discarded(UpdateDecoder u, int type, String reason) {
    u.error(ATTRIBUTE_DISCARD, type, 0, Octets.EMPTY, null, reason);
    return null;
  }

  /**
   * The attribute of {@code type} whose value is {@code b[at, at + length)}; it starts at {@code
   * start}.
   */
  static PathAttribute decode(UpdateDecoder u, int type, int at, int length, int start) {
    byte[] b = u.b;
    int end = at + length;
    return switch (type) {
      // §7.1: length not 1, or an undefined value: treat-as-withdraw
      case AttributeType.ORIGIN -> {
        if (length != 1) {
          yield bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "ORIGIN length " + length);
        }
        Origin o = Origin.ofCode(b[at] & 0xff);
        yield o != null
            ? o
            : bad(u, type, INVALID_ORIGIN_ATTRIBUTE, start, end, "ORIGIN " + (b[at] & 0xff));
      }
      // §7.2: a malformed AS_PATH, or confederation segments from an external peer:
      // treat-as-withdraw
      case AttributeType.AS_PATH -> {
        AsPath path = asPath(b, at, end, u.options.fourOctetAs() ? 4 : 2);
        if (path == null) {
          yield bad(u, type, MALFORMED_AS_PATH, start, end, "malformed AS_PATH");
        }
        // RFC 7607 §2: AS 0 makes AS_PATH malformed
        if (path.contains(0)) {
          yield bad(u, type, MALFORMED_AS_PATH, start, end, "AS 0 in AS_PATH");
        }
        if (u.options.external() && path.hasConfederationSegments()) {
          yield bad(
              u, type, MALFORMED_AS_PATH, start, end, "AS_CONFED segment from an external peer");
        }
        yield path;
      }
      // §7.3: length not 4: treat-as-withdraw (semantic checks belong to the RIB)
      case AttributeType.NEXT_HOP ->
          length == 4
              ? new NextHop(Wire.i32(b, at))
              : bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "NEXT_HOP length " + length);
      // §7.4
      case AttributeType.MULTI_EXIT_DISC ->
          length == 4
              ? new MultiExitDisc(Wire.u32(b, at))
              : bad(
                  u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "MULTI_EXIT_DISC length " + length);
      // §7.5: from an external peer it is discarded; else length not 4: treat-as-withdraw
      case AttributeType.LOCAL_PREF -> {
        if (u.options.external()) {
          yield discarded(u, type, "LOCAL_PREF from an external peer");
        }
        yield length == 4
            ? new LocalPref(Wire.u32(b, at))
            : bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "LOCAL_PREF length " + length);
      }
      // §7.6: length not 0: attribute discard
      case AttributeType.ATOMIC_AGGREGATE ->
          length == 0
              ? AtomicAggregate.INSTANCE
              : bad(
                  u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "ATOMIC_AGGREGATE length " + length);
      // §7.7: length not 6 (8 with 4-octet AS): attribute discard
      case AttributeType.AGGREGATOR -> {
        int asSize = u.options.fourOctetAs() ? 4 : 2;
        if (length != asSize + 4) {
          yield bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "AGGREGATOR length " + length);
        }
        long as = asSize == 4 ? Wire.u32(b, at) : Wire.u16(b, at);
        // RFC 7607 §2: AS 0 makes AGGREGATOR malformed (discarded)
        yield as != 0
            ? new Aggregator(as, Wire.i32(b, at + asSize))
            : bad(u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "AS 0 in AGGREGATOR");
      }
      // §7.8: not a non-zero multiple of 4: treat-as-withdraw
      case AttributeType.COMMUNITIES ->
          length > 0 && length % 4 == 0
              ? new Communities(ints(b, at, length / 4))
              : bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "COMMUNITIES length " + length);
      // §7.9: from an external peer discarded; else length not 4: treat-as-withdraw
      case AttributeType.ORIGINATOR_ID -> {
        if (u.options.external()) {
          yield discarded(u, type, "ORIGINATOR_ID from an external peer");
        }
        yield length == 4
            ? new OriginatorId(Wire.i32(b, at))
            : bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "ORIGINATOR_ID length " + length);
      }
      // §7.10: from an external peer discarded; else not a non-zero multiple of 4:
      // treat-as-withdraw
      case AttributeType.CLUSTER_LIST -> {
        if (u.options.external()) {
          yield discarded(u, type, "CLUSTER_LIST from an external peer");
        }
        yield length > 0 && length % 4 == 0
            ? new ClusterList(ints(b, at, length / 4))
            : bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "CLUSTER_LIST length " + length);
      }
      case AttributeType.MP_REACH_NLRI -> MpAttributes.reach(u, at, end, start);
      case AttributeType.MP_UNREACH_NLRI -> MpAttributes.unreach(u, at, end, start);
      // §7.14: not a non-zero multiple of 8: treat-as-withdraw
      case AttributeType.EXTENDED_COMMUNITIES -> {
        if (length == 0 || length % 8 != 0) {
          yield bad(
              u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "EXTENDED_COMMUNITIES length " + length);
        }
        long[] v = new long[length / 8];
        for (int i = 0; i < v.length; i++) {
          v[i] = Wire.i64(b, at + 8 * i);
        }
        yield new ExtendedCommunities(v);
      }
      // RFC 6793 §6: a malformed AS4_PATH (confederation segments included) is discarded
      case AttributeType.AS4_PATH -> {
        AsPath path = asPath(b, at, end, 4);
        // RFC 7607 §2: also with AS 0
        if (path == null || path.hasConfederationSegments() || path.contains(0)) {
          yield bad(u, type, MALFORMED_AS_PATH, start, end, "malformed AS4_PATH");
        }
        yield new As4Path(path);
      }
      // RFC 6793 §6: length not 8: discarded
      case AttributeType.AS4_AGGREGATOR -> {
        if (length != 8) {
          yield bad(u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "AS4_AGGREGATOR length " + length);
        }
        // RFC 7607 §2
        yield Wire.i32(b, at) != 0
            ? new As4Aggregator(Wire.u32(b, at), Wire.i32(b, at + 4))
            : bad(u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "AS 0 in AS4_AGGREGATOR");
      }
      // RFC 8092 §5: not a non-zero multiple of 12: treat-as-withdraw
      case AttributeType.LARGE_COMMUNITY ->
          length > 0 && length % 12 == 0
              ? new LargeCommunities(ints(b, at, length / 4))
              : bad(
                  u, type, ATTRIBUTE_LENGTH_ERROR, start, end, "LARGE_COMMUNITY length " + length);
      // RFC 9234 §5: length not 4: treat-as-withdraw
      case AttributeType.ONLY_TO_CUSTOMER ->
          length == 4
              ? new OnlyToCustomer(Wire.u32(b, at))
              : bad(u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "OTC length " + length);
      default -> throw new IllegalStateException("not a known attribute: " + type);
    };
  }

  private static int[] ints(byte[] b, int at, int count) {
    int[] v = new int[count];
    for (int i = 0; i < count; i++) {
      v[i] = Wire.i32(b, at + 4 * i);
    }
    return v;
  }

  /**
   * RFC 4271 §4.3 and RFC 7606 §7.2: the AS path in {@code b[at, end)} with AS numbers of {@code
   * asSize} octets, or null when malformed: an unknown segment type, a segment of length zero, a
   * segment that overruns, or a single octet left over.
   */
  static AsPath asPath(byte[] b, int at, int end, int asSize) {
    if (at == end) {
      return AsPath.EMPTY;
    }
    int words = 0;
    for (int i = at; i < end; ) {
      if (end - i < 2) {
        return null;
      }
      int type = b[i] & 0xff;
      int count = b[i + 1] & 0xff;
      if (type < AS_SET || type > AS_CONFED_SET || count == 0) {
        return null;
      }
      i += 2 + count * asSize;
      if (i > end) {
        return null;
      }
      words += 1 + count;
    }
    int[] packed = new int[words];
    int w = 0;
    for (int i = at; i < end; ) {
      int type = b[i] & 0xff;
      int count = b[i + 1] & 0xff;
      packed[w++] = type << 16 | count;
      i += 2;
      for (int k = 0; k < count; k++, i += asSize) {
        packed[w++] = asSize == 4 ? Wire.i32(b, i) : Wire.u16(b, i);
      }
    }
    return new AsPath(packed);
  }

  /** RFC 6793 §4.1: AS4_PATH and AS4_AGGREGATOR from a NEW speaker are discarded. */
  static PathAttributes dropAs4(PathAttributes attributes, UpdateDecoder u) {
    if (attributes.byType(AttributeType.AS4_PATH) == null
        && attributes.byType(AttributeType.AS4_AGGREGATOR) == null) {
      return attributes;
    }
    for (int type : new int[] {AttributeType.AS4_PATH, AttributeType.AS4_AGGREGATOR}) {
      if (attributes.byType(type) != null) {
        u.error(
            ATTRIBUTE_DISCARD,
            type,
            0,
            Octets.EMPTY,
            null,
            "attribute " + type + " from a 4-octet AS speaker");
        attributes = attributes.without(type);
      }
    }
    return attributes;
  }

  /**
   * RFC 6793 §4.2.3: from an OLD speaker, AGGREGATOR and AS_PATH are completed with AS4_AGGREGATOR
   * and AS4_PATH, which then disappear. When both aggregator attributes came and AGGREGATOR's AS is
   * not AS_TRANS, an OLD speaker aggregated after the NEW ones: both AS4 attributes are ignored.
   */
  static PathAttributes mergeAs4(PathAttributes attributes) {
    As4Path as4Path = attributes.orNull(As4Path.class);
    As4Aggregator as4Aggregator = attributes.orNull(As4Aggregator.class);
    if (as4Path == null && as4Aggregator == null) {
      return attributes;
    }
    Aggregator aggregator = attributes.orNull(Aggregator.class);
    boolean ignore =
        aggregator != null && as4Aggregator != null && aggregator.as() != Iana.AS_TRANS;
    PathAttributes.Builder out = PathAttributes.builder();
    for (int i = 0; i < attributes.size(); i++) {
      PathAttribute a = attributes.get(i);
      if (a instanceof As4Path || a instanceof As4Aggregator) {
        continue;
      }
      if (a instanceof Aggregator && !ignore && as4Aggregator != null) {
        a = new Aggregator(as4Aggregator.as(), as4Aggregator.address());
      } else if (a instanceof AsPath p && !ignore && as4Path != null) {
        a = As4Translation.mergePath(p, as4Path.path());
      }
      out.add(a, attributes.flags(i));
    }
    return out.build();
  }
}
