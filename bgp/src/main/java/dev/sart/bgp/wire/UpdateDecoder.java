package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.AttributeFlag.EXTENDED_LENGTH;
import static dev.sart.bgp.wire.Iana.AttributeFlag.OPTIONAL;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.ATTRIBUTE_FLAGS_ERROR;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.ATTRIBUTE_LENGTH_ERROR;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.INVALID_NETWORK_FIELD;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.MALFORMED_ATTRIBUTE_LIST;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.MISSING_WELL_KNOWN_ATTRIBUTE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE;
import static dev.sart.bgp.wire.UpdateError.Action.AFI_SAFI_DISABLE;
import static dev.sart.bgp.wire.UpdateError.Action.ATTRIBUTE_DISCARD;
import static dev.sart.bgp.wire.UpdateError.Action.SESSION_RESET;
import static dev.sart.bgp.wire.UpdateError.Action.TREAT_AS_WITHDRAW;

import java.util.ArrayList;
import java.util.List;

/**
 * UPDATE bodies (RFC 4271 §4.3) with the error handling of RFC 7606: nothing is thrown; every
 * problem becomes an {@link UpdateError} in the result. One instance per message.
 */
final class UpdateDecoder {

  final byte[] b;
  final SessionOptions options;
  private List<UpdateError> errors;
  private UpdateError.Action worst = UpdateError.Action.NONE;
  private PathAttributes.Builder out;
  private long seen0;
  private long seen1;
  private long seen2;
  private long seen3;
  private MpReachNlri mpReach;

  private UpdateDecoder(byte[] b, SessionOptions options) {
    this.b = b;
    this.options = options;
  }

  /** The UPDATE in {@code b[at, end)} (after the 19-octet header). */
  static Update decode(byte[] b, int at, int end, SessionOptions options) {
    return new UpdateDecoder(b, options).decode(at, end);
  }

  void error(
      UpdateError.Action action,
      int typeCode,
      int subcode,
      Octets data,
      Family family,
      String reason) {
    if (errors == null) {
      errors = new ArrayList<>(2);
    }
    errors.add(new UpdateError(action, typeCode, subcode, data, family, reason));
    worst = worst.max(action);
  }

  /** The whole attribute (flags, type, length, value) as NOTIFICATION data (RFC 4271 §6.3). */
  Octets attributeBytes(int from, int to) {
    return Octets.copyOf(b, from, to - from);
  }

  private Update reset(int subcode, Octets data, String reason) {
    error(SESSION_RESET, 0, subcode, data, null, reason);
    return new Update(Ipv4Prefixes.EMPTY, PathAttributes.EMPTY, Ipv4Prefixes.EMPTY, errors);
  }

  private Update decode(int at, int end) {
    // RFC 4271 §6.3 and RFC 7606 §5.1: if the Withdrawn Routes Length or the Total Attribute
    // Length is too large, the NLRI cannot be located: Malformed Attribute List, session reset
    if (end - at < 4) {
      return reset(
          MALFORMED_ATTRIBUTE_LIST, Octets.EMPTY, "UPDATE shorter than its two length fields");
    }
    int withdrawnLength = Wire.u16(b, at);
    int withdrawnStart = at + 2;
    int withdrawnEnd = withdrawnStart + withdrawnLength;
    if (withdrawnEnd + 2 > end) {
      return reset(
          MALFORMED_ATTRIBUTE_LIST, Octets.EMPTY, "Withdrawn Routes Length overruns the UPDATE");
    }
    int attributesLength = Wire.u16(b, withdrawnEnd);
    int attributesStart = withdrawnEnd + 2;
    int attributesEnd = attributesStart + attributesLength;
    if (attributesEnd > end) {
      return reset(
          MALFORMED_ATTRIBUTE_LIST,
          Octets.EMPTY,
          "Total Path Attribute Length overruns the UPDATE");
    }

    // RFC 7606 §3 (h), §5.3: the prefixes must parse, else the UPDATE cannot be withdrawn
    // either; for the IPv4 fields that means disabling IPv4 unicast (or resetting)
    boolean v4PathIds = options.addPathReceive().contains(Family.IPV4_UNICAST);
    Ipv4Prefixes withdrawn = NlriCodec.decodeV4(b, withdrawnStart, withdrawnEnd, v4PathIds);
    Ipv4Prefixes nlri = NlriCodec.decodeV4(b, attributesEnd, end, v4PathIds);
    if (withdrawn == null || nlri == null) {
      error(
          AFI_SAFI_DISABLE,
          0,
          INVALID_NETWORK_FIELD,
          Octets.EMPTY,
          Family.IPV4_UNICAST,
          (withdrawn == null ? "Withdrawn Routes" : "NLRI") + " field is malformed");
      return new Update(Ipv4Prefixes.EMPTY, PathAttributes.EMPTY, Ipv4Prefixes.EMPTY, errors);
    }

    decodeAll(attributesStart, attributesEnd);
    if (worst == SESSION_RESET) {
      return new Update(Ipv4Prefixes.EMPTY, PathAttributes.EMPTY, Ipv4Prefixes.EMPTY, errors);
    }

    // RFC 7606 §3 (d): a missing well-known mandatory attribute is treat-as-withdraw; NEXT_HOP
    // is only needed with IPv4 NLRI in the NLRI field; an UPDATE without NLRI needs none
    boolean reach = !nlri.isEmpty() || (mpReach != null && !mpReach.nlri().isEmpty());
    if (reach) {
      requirePresent(Iana.AttributeType.ORIGIN);
      requirePresent(Iana.AttributeType.AS_PATH);
      if (!nlri.isEmpty()) {
        requirePresent(Iana.AttributeType.NEXT_HOP);
      }
    }
    PathAttributes decoded = build();
    return new Update(withdrawn, decoded, nlri, errors == null ? List.of() : errors);
  }

  private void requirePresent(int typeCode) {
    if (!seen(typeCode)) {
      error(
          TREAT_AS_WITHDRAW,
          typeCode,
          MISSING_WELL_KNOWN_ATTRIBUTE,
          Octets.of((byte) typeCode),
          null,
          "missing well-known attribute " + typeCode);
    }
  }

  // The attribute headers and the list-level rules of RFC 7606 §3-4; the values are
  // AttributeValues' business.

  boolean seen(int type) {
    long bit = 1L << (type & 63);
    return switch (type >>> 6) {
      case 0 -> (seen0 & bit) != 0;
      case 1 -> (seen1 & bit) != 0;
      case 2 -> (seen2 & bit) != 0;
      default -> (seen3 & bit) != 0;
    };
  }

  private void markSeen(int type) {
    long bit = 1L << (type & 63);
    switch (type >>> 6) {
      case 0 -> seen0 |= bit;
      case 1 -> seen1 |= bit;
      case 2 -> seen2 |= bit;
      default -> seen3 |= bit;
    }
  }

  void decodeAll(int from, int to) {
    out = PathAttributes.builder(count(b, from, to));
    int p = from;
    while (p < to) {
      int flags = b[p] & 0xff;
      boolean extended = (flags & EXTENDED_LENGTH) != 0;
      int headerLength = extended ? 4 : 3;
      // RFC 7606 §4: too few octets left for an attribute header: treat-as-withdraw
      if (to - p < headerLength) {
        error(
            TREAT_AS_WITHDRAW,
            0,
            MALFORMED_ATTRIBUTE_LIST,
            Octets.EMPTY,
            null,
            "fewer octets than an attribute header at the end of the path attributes");
        return;
      }
      int type = b[p + 1] & 0xff;
      int length = extended ? Wire.u16(b, p + 2) : b[p + 2] & 0xff;
      int valueStart = p + headerLength;
      int valueEnd = valueStart + length;
      if (valueEnd > to) {
        // RFC 7606 §4: the last attribute overruns the Total Path Attribute Length:
        // treat-as-withdraw, unless it is MP_REACH/MP_UNREACH, whose NLRI are then
        // lost (§3 (h)): session reset
        boolean mp =
            type == Iana.AttributeType.MP_REACH_NLRI || type == Iana.AttributeType.MP_UNREACH_NLRI;
        error(
            mp ? SESSION_RESET : TREAT_AS_WITHDRAW,
            type,
            ATTRIBUTE_LENGTH_ERROR,
            attributeBytes(p, to),
            null,
            "attribute " + type + " overruns the path attributes");
        return;
      }
      int start = p;
      p = valueEnd;
      // RFC 7606 §3 (g): a repeated MP_REACH/MP_UNREACH is Malformed Attribute List
      // (session reset); any other repeated attribute: keep the first, discard the rest
      if (seen(type)) {
        if (type == Iana.AttributeType.MP_REACH_NLRI
            || type == Iana.AttributeType.MP_UNREACH_NLRI) {
          error(
              SESSION_RESET,
              type,
              MALFORMED_ATTRIBUTE_LIST,
              Octets.EMPTY,
              null,
              "attribute " + type + " appears twice");
          return;
        }
        error(
            ATTRIBUTE_DISCARD,
            type,
            MALFORMED_ATTRIBUTE_LIST,
            Octets.EMPTY,
            null,
            "attribute " + type + " appears twice; the first is kept");
        continue;
      }
      markSeen(type);
      if (length > 255) {
        flags &= ~EXTENDED_LENGTH; // implied by the length: kept only where it was a choice
      }
      int expected = Attributes.expectedFlags(type);
      if (expected < 0) {
        if ((flags & OPTIONAL) == 0) {
          // RFC 4271 §6.3: Unrecognized Well-known Attribute, data = the attribute
          error(
              SESSION_RESET,
              type,
              UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE,
              attributeBytes(start, valueEnd),
              null,
              "unrecognized well-known attribute " + type);
          return;
        }
        out.add(
            new UnknownAttribute(type, flags & 0xe0, Octets.copyOf(b, valueStart, length)), flags);
        continue;
      }
      if ((flags & 0xc0) != expected) {
        // RFC 7606 §3 (c): wrong Optional/Transitive bits make the attribute malformed
        AttributeValues.malformed(
            this,
            type,
            ATTRIBUTE_FLAGS_ERROR,
            start,
            valueEnd,
            "flags 0x" + Integer.toHexString(flags) + " for attribute " + type);
        if (worst == SESSION_RESET) {
          return;
        }
        continue;
      }
      PathAttribute a = AttributeValues.decode(this, type, valueStart, length, start);
      if (a != null) {
        if (a instanceof MpReachNlri r) {
          mpReach = r;
        }
        out.add(a, flags);
      } else if (worst == SESSION_RESET) {
        return;
      }
    }
  }

  /**
   * How many attribute headers {@code b[from, to)} holds, so that the builder is allocated once.
   */
  private static int count(byte[] b, int from, int to) {
    int n = 0;
    for (int p = from; to - p >= 3; n++) {
      boolean extended = (b[p] & EXTENDED_LENGTH) != 0;
      if (extended && to - p < 4) {
        break;
      }
      p += extended ? 4 + Wire.u16(b, p + 2) : 3 + (b[p + 2] & 0xff);
    }
    return n;
  }

  PathAttributes build() {
    PathAttributes attributes = out.build();
    if (!seen(Iana.AttributeType.AS4_PATH) && !seen(Iana.AttributeType.AS4_AGGREGATOR)) {
      return attributes;
    }
    return options.fourOctetAs()
        ? AttributeValues.dropAs4(attributes, this)
        : AttributeValues.mergeAs4(attributes);
  }
}
