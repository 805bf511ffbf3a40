package dev.sart.agent.egress;

import dev.sart.fib.netlink.MacAddress;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The names and numbers both tunnel ends derive from an Egress and an address, so that the client
 * pod's agent and the egress pod's {@code sartd egress} agree without talking to each other.
 *
 * <ul>
 *   <li>VNI: 24 bits of SHA-256({@code namespace/name}); one VXLAN device per Egress in a client
 *       pod, all on one UDP port, told apart by it (RFC 7348 §5).
 *   <li>MAC of the gateway end: {@code 02:53:} + 0 + the VNI (locally administered, unicast). Every
 *       replica uses it, so a client's permanent neighbour entry stays right when the Service sends
 *       it to another replica (fail-over needs no change in the client).
 *   <li>MAC of a client end: {@code 02:54:} + the client pod's IPv4 address ({@code 06:} + 40 bits
 *       of the SHA-256 of an IPv6-only pod's address); the gateway computes it from the pod's
 *       address for its FDB and neighbour entries.
 *   <li>IPv6 next hop of the gateway end: the link-local address the gateway MAC makes (modified
 *       EUI-64, RFC 4291 §2.5.1 and Appendix A), {@code fe80::53:ff:fe} + the VNI; clients hold a
 *       permanent neighbour entry for it, so no neighbour discovery crosses the tunnel.
 * </ul>
 */
public final class EgressIds {
  private EgressIds() {}

  /** rtm_protocol of the routes and rules the egress data path installs (coil uses 30). */
  public static final int PROTOCOL = 51;

  /** Client pod: the table of the Egress destinations other than a default route (coil's 117). */
  public static final int CLIENT_TABLE = 117;

  /** Client pod: the table of default-route destinations (coil's 118). */
  public static final int CLIENT_DEFAULT_TABLE = 118;

  /** Egress pod: the table of the routes back to the clients (coil's 118). */
  public static final int GATEWAY_TABLE = 118;

  /** Client pod rule priorities (coil's layout, "Rules in a client Pod"). */
  public static final int PREF_LINK_LOCAL = 1800;

  public static final int PREF_PEER = 1850;
  public static final int PREF_CLIENT_TABLE = 1900;
  public static final int PREF_PRIVATE = 2000;
  public static final int PREF_DEFAULT_TABLE = 2100;

  /** Egress pod: {@code iif eth0 lookup 118} (coil's "Rules in an egress Pod"). */
  public static final int PREF_GATEWAY = 2000;

  /** VXLAN header and outer IPv4/UDP/Ethernet: 50 bytes less than the underlay (RFC 7348 §4). */
  public static final int VXLAN_OVERHEAD = 50;

  public static int vni(String namespace, String name) {
    byte[] h = sha256(namespace + "/" + name);
    int vni = ((h[0] & 0xff) << 16) | ((h[1] & 0xff) << 8) | (h[2] & 0xff);
    return vni == 0 ? 1 : vni;
  }

  public static MacAddress gatewayMac(int vni) {
    return new MacAddress(0x0253_0000_0000L | (vni & 0xffffffL));
  }

  /** The gateway MAC's modified EUI-64 link-local address (RFC 4291 Appendix A). */
  public static InetAddress gatewayLinkLocal(int vni) {
    byte[] a = new byte[16];
    a[0] = (byte) 0xfe;
    a[1] = (byte) 0x80;
    // 02:53:00:v1:v2:v3 → 00:53:00:ff:fe:v1:v2:v3 (the universal/local bit inverted)
    a[9] = 0x53;
    a[11] = (byte) 0xff;
    a[12] = (byte) 0xfe;
    a[13] = (byte) (vni >> 16);
    a[14] = (byte) (vni >> 8);
    a[15] = (byte) vni;
    try {
      return InetAddress.getByAddress(a);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A client pod's MAC on its VXLAN device, from its underlay address, so that the gateway knows it
   * without learning: {@code 02:54:} + the IPv4 address, or for an IPv6 underlay {@code 06:} + 40
   * bits of the address's SHA-256 (locally administered unicast, apart from the IPv4 ones).
   */
  public static MacAddress clientMac(InetAddress client) {
    if (!(client instanceof Inet4Address)) {
      byte[] h = sha256(client.getHostAddress());
      long v = 0x06;
      for (int i = 0; i < 5; i++) {
        v = (v << 8) | (h[i] & 0xff);
      }
      return new MacAddress(v);
    }
    long v = 0;
    for (byte b : client.getAddress()) {
      v = (v << 8) | (b & 0xff);
    }
    return new MacAddress(0x0254_0000_0000L | v);
  }

  /** The tunnel device in a client pod: {@code egr} + the VNI in hex (at most 9 characters). */
  public static String clientDevice(int vni) {
    return "egr" + Integer.toHexString(vni);
  }

  /** The tunnel device in an egress pod. */
  public static final String GATEWAY_DEVICE = "egress0";

  /** The egress pod's tunnel device for clients over an IPv6 underlay. */
  public static final String GATEWAY_DEVICE6 = "egress6";

  /** VXLAN over IPv6: IPv6 (40) + UDP (8) + VXLAN (8) + inner Ethernet (14). */
  public static final int VXLAN6_OVERHEAD = 70;

  /**
   * The FoU tunnel device to {@code peer}: coil's {@code fou4_<8 hex digits of the IPv4 address>},
   * and for IPv6 {@code fou6_} + 10 hex digits of the address's SHA-256 (IFNAMSIZ is 16 with the
   * NUL, so 32 hex digits would not fit).
   */
  public static String fouDevice(InetAddress peer) {
    var hex = java.util.HexFormat.of();
    if (peer instanceof java.net.Inet4Address) {
      return "fou4_" + hex.formatHex(peer.getAddress());
    }
    return "fou6_" + hex.formatHex(sha256(peer.getHostAddress())).substring(0, 10);
  }

  /** The flow-based FoU receivers (coil's catch-all for replies from a gateway's own address). */
  public static String fouReceiver(boolean ipv6) {
    return ipv6 ? "fou6rx" : "fou4rx";
  }

  /** IPv4 (20) + UDP (8) outside IPIP; IPv6 (40) + UDP (8) outside IP6IP6. */
  public static int fouOverhead(boolean ipv6) {
    return ipv6 ? 48 : 28;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
