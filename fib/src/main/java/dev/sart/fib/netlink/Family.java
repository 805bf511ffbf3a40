package dev.sart.fib.netlink;

import dev.sart.net.IpPrefix;
import java.net.Inet4Address;
import java.net.InetAddress;

/** The address families routes, addresses, rules and neighbours come in (linux/socket.h). */
public enum Family {
  INET(Rtnl.AF_INET, 4),
  INET6(Rtnl.AF_INET6, 16);

  private final int code;
  private final int addressLength;

  Family(int code, int addressLength) {
    this.code = code;
    this.addressLength = addressLength;
  }

  /** AF_INET or AF_INET6. */
  public int code() {
    return code;
  }

  /** Bytes in an address of this family. */
  public int addressLength() {
    return addressLength;
  }

  /** The largest prefix length (32 or 128). */
  public int maxPrefixLength() {
    return addressLength * 8;
  }

  public static Family of(InetAddress a) {
    return a instanceof Inet4Address ? INET : INET6;
  }

  public static Family of(IpPrefix p) {
    return of(p.address());
  }

  /** The family of an AF_* code, or null for another family (AF_BRIDGE, RTNL_FAMILY_IPMR, ...). */
  static Family ofCode(int code) {
    return switch (code) {
      case Rtnl.AF_INET -> INET;
      case Rtnl.AF_INET6 -> INET6;
      default -> null;
    };
  }
}
