package dev.sart.bgp.wire;

/**
 * The Network Address of Next Hop of an MP_REACH_NLRI (RFC 4760 §3): IPv4 (4 octets), IPv6 global
 * (16, RFC 2545 §3), IPv6 global and link-local (32), also for IPv4 NLRI (RFC 8950 §3); anything
 * else (other families) kept as octets.
 */
public sealed interface MpNextHop {

  /** The encoded length in octets. */
  int length();

  /** The next hop as MP_REACH_NLRI carries it (RFC 4760 §3); for IPv4, also NEXT_HOP's value. */
  default byte[] toBytes() {
    WireWriter w = new WireWriter(length());
    AttributeEncoder.writeNextHop(this, w);
    return w.toByteArray();
  }

  record V4(int address) implements MpNextHop {
    @Override
    public int length() {
      return 4;
    }

    @Override
    public String toString() {
      return "V4[" + Ip.formatV4(address) + "]";
    }
  }

  record V6(long high, long low) implements MpNextHop {
    public static V6 of(String text) {
      long[] a = Ip.parseV6(text);
      return new V6(a[0], a[1]);
    }

    @Override
    public int length() {
      return 16;
    }

    @Override
    public String toString() {
      return "V6[" + Ip.formatV6(high, low) + "]";
    }
  }

  /** RFC 2545 §3: a global address followed by a link-local one. */
  record V6WithLinkLocal(long high, long low, long linkLocalHigh, long linkLocalLow)
      implements MpNextHop {
    public static V6WithLinkLocal of(String global, String linkLocal) {
      long[] g = Ip.parseV6(global);
      long[] l = Ip.parseV6(linkLocal);
      return new V6WithLinkLocal(g[0], g[1], l[0], l[1]);
    }

    @Override
    public int length() {
      return 32;
    }

    @Override
    public String toString() {
      return "V6[" + Ip.formatV6(high, low) + " " + Ip.formatV6(linkLocalHigh, linkLocalLow) + "]";
    }
  }

  /** A next hop of a family the codec does not unpack. */
  record Opaque(Octets bytes) implements MpNextHop {
    public Opaque {
      if (bytes.length() > 255) {
        throw new IllegalArgumentException("next hop longer than 255 octets");
      }
    }

    @Override
    public int length() {
      return bytes.length();
    }
  }
}
