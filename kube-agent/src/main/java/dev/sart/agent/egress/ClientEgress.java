package dev.sart.agent.egress;

import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.List;

/**
 * One Egress as a client pod uses it: the tunnel goes to {@code peer} (the egress Service's
 * ClusterIP) on UDP {@code port}, and carries {@code destinations}.
 */
public record ClientEgress(
    String namespace, String name, InetAddress peer, int port, List<IpPrefix> destinations) {
  public ClientEgress {
    destinations = List.copyOf(destinations);
  }

  public int vni() {
    return EgressIds.vni(namespace, name);
  }
}
