package dev.sart.agent.egress;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * The tunnel end in an egress pod, one per mode: {@link GatewayTunnel}, {@link FouGatewayTunnel}.
 */
public interface GatewayEnd {
  /** Makes what every client shares (device or FoU receivers, the rule, forwarding). */
  void setUp();

  /**
   * Makes the per-client entries exactly those of {@code clients}: each client pod's IPv4 address
   * (an IPv6-only pod's IPv6 address) with its IPv6 addresses.
   */
  void clients(Map<InetAddress, List<InetAddress>> clients);

  /** Removes everything {@link #setUp} and {@link #clients} made. */
  void tearDown();
}
