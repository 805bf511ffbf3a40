package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.ErrorCode.OPEN_MESSAGE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.BAD_BGP_IDENTIFIER;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.BAD_PEER_AS;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNACCEPTABLE_HOLD_TIME;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNSPECIFIC;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNSUPPORTED_OPTIONAL_PARAMETER;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNSUPPORTED_VERSION_NUMBER;

import java.util.ArrayList;
import java.util.List;

/**
 * OPEN bodies (RFC 4271 §4.2) with RFC 9072 extended optional parameters, and the checks of RFC
 * 4271 §6.2 that need no configuration. Whether the peer's AS is the configured one, and whether
 * its identifier collides with ours, is the FSM's business (2/2, 2/3 from there).
 */
final class OpenCodec {

  private static final int FIXED = 10; // version .. opt parm len

  private OpenCodec() {}

  /** The OPEN in {@code b[at, end)} (after the header). */
  static Open decode(byte[] b, int at, int end) throws NotificationException {
    if (end - at < FIXED) {
      throw new NotificationException(OPEN_MESSAGE, UNSPECIFIC, "OPEN shorter than its fixed part");
    }
    int version = Wire.u8(b, at);
    // RFC 4271 §6.2: the data is the largest locally supported version number (2 octets)
    if (version != Open.VERSION) {
      throw new NotificationException(
          OPEN_MESSAGE,
          UNSUPPORTED_VERSION_NUMBER,
          Octets.of((byte) 0, (byte) Open.VERSION),
          "version " + version);
    }
    int myAs = Wire.u16(b, at + 1);
    int holdTime = Wire.u16(b, at + 3);
    int bgpIdentifier = Wire.i32(b, at + 5);
    // RFC 7607 §2: AS 0 in an OPEN is a Bad Peer AS
    if (myAs == 0) {
      throw new NotificationException(OPEN_MESSAGE, BAD_PEER_AS, "AS 0");
    }
    // RFC 4271 §6.2: a hold time of one or two seconds MUST be rejected
    if (holdTime == 1 || holdTime == 2) {
      throw new NotificationException(
          OPEN_MESSAGE, UNACCEPTABLE_HOLD_TIME, "hold time " + holdTime);
    }
    // RFC 6286 §2.1: the BGP Identifier is a non-zero 4-octet unsigned integer
    if (bgpIdentifier == 0) {
      throw new NotificationException(OPEN_MESSAGE, BAD_BGP_IDENTIFIER, "BGP Identifier 0");
    }
    int paramsLength = Wire.u8(b, at + 9);
    int p = at + FIXED;
    boolean extended = false;
    // RFC 9072 §2: Non-Ext OP Len 255 followed by Non-Ext OP Type 255 announces a 2-octet
    // Extended Opt. Parm. Length, and 2-octet parameter lengths
    if (paramsLength == 255 && p < end && Wire.u8(b, p) == Iana.OptionalParameter.EXTENDED_LENGTH) {
      if (end - p < 3) {
        throw new NotificationException(
            OPEN_MESSAGE, UNSPECIFIC, "truncated extended parameters length");
      }
      paramsLength = Wire.u16(b, p + 1);
      p += 3;
      extended = true;
    }
    if (p + paramsLength != end) {
      throw new NotificationException(
          OPEN_MESSAGE,
          UNSPECIFIC,
          "optional parameters length " + paramsLength + " disagrees with the message length");
    }
    List<OptionalParameter> parameters = new ArrayList<>();
    int headLength = extended ? 3 : 2;
    while (p < end) {
      if (end - p < headLength) {
        throw new NotificationException(OPEN_MESSAGE, UNSPECIFIC, "truncated optional parameter");
      }
      int type = Wire.u8(b, p);
      int length = extended ? Wire.u16(b, p + 1) : Wire.u8(b, p + 1);
      int start = p + headLength;
      if (start + length > end) {
        throw new NotificationException(
            OPEN_MESSAGE, UNSPECIFIC, "optional parameter overruns the OPEN");
      }
      if (type != Iana.OptionalParameter.CAPABILITIES) {
        // RFC 4271 §6.2
        throw new NotificationException(
            OPEN_MESSAGE, UNSUPPORTED_OPTIONAL_PARAMETER, "optional parameter type " + type);
      }
      parameters.add(
          new OptionalParameter.Capabilities(CapabilityCodec.decodeAll(b, start, start + length)));
      p = start + length;
    }
    for (OptionalParameter parameter : parameters) {
      switch (parameter) {
        case OptionalParameter.Capabilities c -> {
          for (Capability capability : c.capabilities()) {
            // RFC 7607 §2: also AS 0 in the 4-octet AS capability
            if (capability instanceof Capability.FourOctetAs(long as) && as == 0) {
              throw new NotificationException(OPEN_MESSAGE, BAD_PEER_AS, "4-octet AS 0");
            }
          }
        }
      }
    }
    return new Open(version, myAs, holdTime, bgpIdentifier, parameters);
  }

  static void encode(Open open, WireWriter out) {
    out.u8(open.version());
    out.u16(open.myAs());
    out.u16(open.holdTime());
    out.u32(open.bgpIdentifier());
    List<WireWriter> values = new ArrayList<>();
    int shortTotal = 0;
    boolean extended = false;
    for (OptionalParameter parameter : open.parameters()) {
      WireWriter value = new WireWriter();
      switch (parameter) {
        case OptionalParameter.Capabilities c -> {
          for (Capability capability : c.capabilities()) {
            CapabilityCodec.encode(capability, value);
          }
        }
      }
      values.add(value);
      shortTotal += 2 + value.length();
      extended |= value.length() > 255;
    }
    extended |= shortTotal > 255;
    if (extended) {
      // RFC 9072 §2: only when the parameters do not fit the 1-octet lengths
      out.u8(255);
      out.u8(Iana.OptionalParameter.EXTENDED_LENGTH);
      out.u16(shortTotal + values.size());
    } else {
      out.u8(shortTotal);
    }
    for (int i = 0; i < values.size(); i++) {
      WireWriter value = values.get(i);
      out.u8(open.parameters().get(i).type());
      if (extended) {
        out.u16(value.length());
      } else {
        out.u8(value.length());
      }
      out.bytes(value.array(), 0, value.length());
    }
  }
}
