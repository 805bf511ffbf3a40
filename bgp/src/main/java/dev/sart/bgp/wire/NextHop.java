package dev.sart.bgp.wire;

/** RFC 4271 §5.1.3: NEXT_HOP, well-known mandatory when there are IPv4 NLRI, an IPv4 address. */
public record NextHop(int address) implements PathAttribute {

  public static NextHop of(String dotted) {
    return new NextHop(Ip.parseV4(dotted));
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.NEXT_HOP;
  }

  @Override
  public String toString() {
    return "NextHop[" + Ip.formatV4(address) + "]";
  }
}
