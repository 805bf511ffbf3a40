package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.ErrorCode.OPEN_MESSAGE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNSPECIFIC;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Capabilities on the wire (RFC 5492 §4 and the RFC of each capability, cited per record). */
final class CapabilityCodec {

  private CapabilityCodec() {}

  /** The capabilities in {@code b[from, to)}, the value of one Capabilities optional parameter. */
  static List<Capability> decodeAll(byte[] b, int from, int to) throws NotificationException {
    List<Capability> out = new ArrayList<>();
    int i = from;
    while (i < to) {
      if (to - i < 2) {
        throw malformed("truncated capability header");
      }
      int code = Wire.u8(b, i);
      int length = Wire.u8(b, i + 1);
      int start = i + 2;
      if (start + length > to) {
        throw malformed("capability " + code + " overruns its parameter");
      }
      out.add(decode(code, b, start, length));
      i = start + length;
    }
    return out;
  }

  private static Capability decode(int code, byte[] b, int at, int length)
      throws NotificationException {
    return switch (code) {
      case Iana.CapabilityCode.MULTIPROTOCOL -> {
        expect(code, length == 4);
        yield new Capability.Multiprotocol(Family.of(Wire.u16(b, at), Wire.u8(b, at + 3)));
      }
      case Iana.CapabilityCode.ROUTE_REFRESH -> {
        expect(code, length == 0);
        yield Capability.RouteRefresh.INSTANCE;
      }
      case Iana.CapabilityCode.EXTENDED_NEXT_HOP -> {
        expect(code, length % 6 == 0);
        List<Capability.ExtendedNextHop.Entry> entries = new ArrayList<>();
        for (int i = at; i < at + length; i += 6) {
          entries.add(
              new Capability.ExtendedNextHop.Entry(
                  Wire.u16(b, i), Wire.u16(b, i + 2), Wire.u16(b, i + 4)));
        }
        yield new Capability.ExtendedNextHop(entries);
      }
      case Iana.CapabilityCode.EXTENDED_MESSAGE -> {
        expect(code, length == 0);
        yield Capability.ExtendedMessage.INSTANCE;
      }
      case Iana.CapabilityCode.ROLE -> {
        expect(code, length == 1);
        yield new Capability.Role(Wire.u8(b, at));
      }
      case Iana.CapabilityCode.GRACEFUL_RESTART -> {
        expect(code, length >= 2 && (length - 2) % 4 == 0);
        int head = Wire.u16(b, at);
        List<Capability.GracefulRestart.Entry> families = new ArrayList<>();
        for (int i = at + 2; i < at + length; i += 4) {
          families.add(
              new Capability.GracefulRestart.Entry(
                  Family.of(Wire.u16(b, i), Wire.u8(b, i + 2)), Wire.u8(b, i + 3)));
        }
        yield new Capability.GracefulRestart(head >>> 12, head & 0xfff, families);
      }
      case Iana.CapabilityCode.FOUR_OCTET_AS -> {
        expect(code, length == 4);
        yield new Capability.FourOctetAs(Wire.u32(b, at));
      }
      case Iana.CapabilityCode.ADD_PATH -> {
        expect(code, length % 4 == 0);
        List<Capability.AddPath.Entry> families = new ArrayList<>();
        for (int i = at; i < at + length; i += 4) {
          families.add(
              new Capability.AddPath.Entry(
                  Family.of(Wire.u16(b, i), Wire.u8(b, i + 2)), Wire.u8(b, i + 3)));
        }
        yield new Capability.AddPath(families);
      }
      case Iana.CapabilityCode.ENHANCED_ROUTE_REFRESH -> {
        expect(code, length == 0);
        yield Capability.EnhancedRouteRefresh.INSTANCE;
      }
      case Iana.CapabilityCode.LONG_LIVED_GRACEFUL_RESTART -> {
        expect(code, length % 7 == 0);
        List<Capability.LongLivedGracefulRestart.Entry> families = new ArrayList<>();
        for (int i = at; i < at + length; i += 7) {
          families.add(
              new Capability.LongLivedGracefulRestart.Entry(
                  Family.of(Wire.u16(b, i), Wire.u8(b, i + 2)),
                  Wire.u8(b, i + 3),
                  Wire.u24(b, i + 4)));
        }
        yield new Capability.LongLivedGracefulRestart(families);
      }
      case Iana.CapabilityCode.FQDN -> {
        expect(code, length >= 1);
        int hostLength = Wire.u8(b, at);
        expect(code, 1 + hostLength + 1 <= length);
        int domainLength = Wire.u8(b, at + 1 + hostLength);
        expect(code, 2 + hostLength + domainLength == length);
        yield new Capability.Fqdn(
            new String(b, at + 1, hostLength, StandardCharsets.ISO_8859_1),
            new String(b, at + 2 + hostLength, domainLength, StandardCharsets.ISO_8859_1));
      }
      default -> new Capability.Unknown(code, Octets.copyOf(b, at, length));
    };
  }

  /**
   * RFC 5492 names no subcode for a malformed capability; like BIRD and GoBGP we answer OPEN
   * Message Error / Unspecific.
   */
  private static void expect(int code, boolean wellFormed) throws NotificationException {
    if (!wellFormed) {
      throw malformed("capability " + code + " has a bad length");
    }
  }

  private static NotificationException malformed(String reason) {
    return new NotificationException(OPEN_MESSAGE, UNSPECIFIC, reason);
  }

  static void encode(Capability capability, WireWriter out) {
    out.u8(capability.code());
    int lengthAt = out.reserve(1);
    int start = out.length();
    switch (capability) {
      case Capability.Multiprotocol c -> {
        out.u16(c.family().afi());
        out.u8(0);
        out.u8(c.family().safi());
      }
      case Capability.RouteRefresh c -> {}
      case Capability.ExtendedNextHop c -> {
        for (Capability.ExtendedNextHop.Entry e : c.entries()) {
          out.u16(e.nlriAfi());
          out.u16(e.nlriSafi());
          out.u16(e.nextHopAfi());
        }
      }
      case Capability.ExtendedMessage c -> {}
      case Capability.Role c -> out.u8(c.role());
      case Capability.GracefulRestart c -> {
        out.u16(c.restartFlags() << 12 | c.restartTime());
        for (Capability.GracefulRestart.Entry e : c.families()) {
          out.u16(e.family().afi());
          out.u8(e.family().safi());
          out.u8(e.flags());
        }
      }
      case Capability.FourOctetAs c -> out.u32((int) c.as());
      case Capability.AddPath c -> {
        for (Capability.AddPath.Entry e : c.families()) {
          out.u16(e.family().afi());
          out.u8(e.family().safi());
          out.u8(e.sendReceive());
        }
      }
      case Capability.EnhancedRouteRefresh c -> {}
      case Capability.LongLivedGracefulRestart c -> {
        for (Capability.LongLivedGracefulRestart.Entry e : c.families()) {
          out.u16(e.family().afi());
          out.u8(e.family().safi());
          out.u8(e.flags());
          out.u24(e.staleTime());
        }
      }
      case Capability.Fqdn c -> {
        byte[] host = c.hostname().getBytes(StandardCharsets.ISO_8859_1);
        byte[] domain = c.domain().getBytes(StandardCharsets.ISO_8859_1);
        out.u8(host.length);
        out.bytes(host, 0, host.length);
        out.u8(domain.length);
        out.bytes(domain, 0, domain.length);
      }
      case Capability.Unknown c -> c.value().writeTo(out);
    }
    int length = out.length() - start;
    if (length > 255) {
      throw new IllegalArgumentException(
          "capability " + capability.code() + " longer than 255 octets");
    }
    out.putU8(lengthAt, length);
  }
}
