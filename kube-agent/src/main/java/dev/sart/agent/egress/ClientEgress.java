package dev.sart.agent.egress;

import dev.sart.crds.TunnelMode;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.List;

/**
 * One Egress as a client pod uses it: the tunnel ({@code mode}) goes to {@code peer} (the egress
 * Service's ClusterIP) on UDP {@code port}, and carries {@code destinations}; with FoU, {@code
 * fouSourcePortAuto} takes the outer source port from the flow's hash (coil's field).
 */
public record ClientEgress(
    String namespace,
    String name,
    InetAddress peer,
    int port,
    List<IpPrefix> destinations,
    TunnelMode mode,
    boolean fouSourcePortAuto) {
  public ClientEgress {
    destinations = List.copyOf(destinations);
  }

  /** A VXLAN tunnel. */
  public ClientEgress(
      String namespace, String name, InetAddress peer, int port, List<IpPrefix> destinations) {
    this(namespace, name, peer, port, destinations, TunnelMode.VXLAN, false);
  }

  public int vni() {
    return EgressIds.vni(namespace, name);
  }

  /** The client pod's device of this Egress. */
  public String device() {
    return mode == TunnelMode.FOU ? EgressIds.fouDevice(peer) : EgressIds.clientDevice(vni());
  }
}
