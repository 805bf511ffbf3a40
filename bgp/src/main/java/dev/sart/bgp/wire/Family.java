package dev.sart.bgp.wire;

/**
 * An address family: AFI (2 octets) and SAFI (1 octet), RFC 4760 §3. An open registry: any value
 * pair is representable; only the constants below have NLRI the codec unpacks.
 */
public record Family(int afi, int safi) {

  public static final Family IPV4_UNICAST = new Family(Iana.Afi.IPV4, Iana.Safi.UNICAST);
  public static final Family IPV6_UNICAST = new Family(Iana.Afi.IPV6, Iana.Safi.UNICAST);
  public static final Family IPV4_MULTICAST = new Family(Iana.Afi.IPV4, Iana.Safi.MULTICAST);
  public static final Family IPV6_MULTICAST = new Family(Iana.Afi.IPV6, Iana.Safi.MULTICAST);

  public Family {
    if (afi < 0 || afi > 0xffff || safi < 0 || safi > 0xff) {
      throw new IllegalArgumentException("AFI/SAFI out of range: " + afi + "/" + safi);
    }
  }

  // written out: a record's generated equals/hashCode go through a method handle that showed up
  // as a hot frame of its own in profiles of the RIB (every prefix compares its family)
  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof Family f && afi == f.afi && safi == f.safi);
  }

  @Override
  public int hashCode() {
    return afi * 31 + safi;
  }

  /** Returns the shared constant for the common families, so hot paths allocate nothing. */
  public static Family of(int afi, int safi) {
    if (safi == Iana.Safi.UNICAST) {
      if (afi == Iana.Afi.IPV4) {
        return IPV4_UNICAST;
      }
      if (afi == Iana.Afi.IPV6) {
        return IPV6_UNICAST;
      }
    }
    return new Family(afi, safi);
  }

  /**
   * Unicast or multicast IPv4/IPv6: NLRI are plain prefixes (RFC 4271 §4.3, RFC 2545, RFC 4760 §5).
   */
  public boolean hasPrefixNlri() {
    return (afi == Iana.Afi.IPV4 || afi == Iana.Afi.IPV6)
        && (safi == Iana.Safi.UNICAST || safi == Iana.Safi.MULTICAST);
  }

  @Override
  public String toString() {
    String a =
        switch (afi) {
          case Iana.Afi.IPV4 -> "ipv4";
          case Iana.Afi.IPV6 -> "ipv6";
          default -> "afi" + afi;
        };
    String s =
        switch (safi) {
          case Iana.Safi.UNICAST -> "unicast";
          case Iana.Safi.MULTICAST -> "multicast";
          default -> "safi" + safi;
        };
    return a + "-" + s;
  }
}
