package dev.sart.agent.egress;

import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The FoU devices of a client pod (coil's model, its design notes "Bidirectional tunneling"): a FoU
 * receiver on each Egress's port for the pod's family, the flow-based receiver {@code fou4rx} /
 * {@code fou6rx} (replies come from the gateway pod's own address, not the ClusterIP the tunnel
 * goes to), and per Egress an ipip (ip6tnl for an IPv6 pod) link {@code fou4_<hex>} from the pod's
 * address to the ClusterIP. {@link ClientTunnels} routes and rules them like its VXLAN devices.
 */
final class FouClientTunnels {
  private static final Logger LOG = Logger.getLogger(FouClientTunnels.class.getName());

  private FouClientTunnels() {}

  /**
   * Makes the devices of {@code fou} (all of the pod's family); device name → index. When a step
   * fails, what this call made is removed again and the error thrown ({@link Fou#NO_FOU} on a
   * kernel without {@code fou}: nothing was made).
   */
  static Map<String, Integer> devices(
      Netlink pod,
      Supplier<GenericNetlink> genl,
      InetAddress podAddress,
      Link uplink,
      List<ClientEgress> fou) {
    if (fou.isEmpty()) {
      return Map.of();
    }
    boolean v6 = podAddress instanceof Inet6Address;
    var g = genl.get();
    int family = Fou.family(g);
    var ports = new ArrayList<Integer>();
    var links = new ArrayList<String>();
    var out = new HashMap<String, Integer>();
    try {
      for (var port : new TreeSet<>(fou.stream().map(ClientEgress::port).toList())) {
        if (Fou.addPort(g, family, port, v6)) {
          ports.add(port);
        }
      }
      var receiver = EgressIds.fouReceiver(v6);
      if (pod.links().find(receiver).isEmpty()) {
        Fou.receiver(pod, v6, fou.getFirst().port(), uplink.mtu());
        links.add(receiver);
      }
      for (var e : fou) {
        var name = e.device();
        if (pod.links().find(name).isEmpty()) {
          Fou.link(
              pod,
              name,
              podAddress,
              e.peer(),
              e.fouSourcePortAuto() ? 0 : e.port(),
              e.port(),
              uplink.mtu());
          links.add(name);
          LOG.info(
              "egress tunnel added mode=fou device="
                  + name
                  + " egress="
                  + e.namespace()
                  + "/"
                  + e.name()
                  + " peer="
                  + e.peer().getHostAddress());
        }
        out.put(name, pod.links().get(name).index());
      }
    } catch (RuntimeException e) {
      for (var l : links.reversed()) {
        ClientTunnels.deleteQuietly(() -> pod.links().delete(l));
      }
      for (var p : ports) {
        Fou.deletePort(g, family, p, v6);
      }
      throw e;
    }
    return out;
  }

  /**
   * Removes our FoU links not in {@code wanted}; when no tunnel is left, the receivers and the FoU
   * ports their aliases name too.
   */
  static void removeStale(Netlink pod, Supplier<GenericNetlink> genl, Set<String> wanted) {
    var ours = pod.links().list().stream().filter(Fou::isOurs).toList();
    boolean tunnelsLeft = ours.stream().anyMatch(l -> wanted.contains(l.name()));
    var ports = new TreeSet<Integer>();
    var families = new TreeSet<Boolean>();
    for (var link : ours) {
      boolean receiver =
          link.name().equals(EgressIds.fouReceiver(false))
              || link.name().equals(EgressIds.fouReceiver(true));
      if (wanted.contains(link.name()) || (receiver && tunnelsLeft)) {
        continue;
      }
      Fou.port(link).ifPresent(ports::add);
      families.add("ip6tnl".equals(link.kind()));
      ClientTunnels.deleteQuietly(() -> pod.links().delete(link.name()));
      LOG.info("egress tunnel removed mode=fou device=" + link.name());
    }
    if (!tunnelsLeft && !ports.isEmpty()) {
      var g = genl.get();
      int family = Fou.family(g);
      for (int p : ports) {
        for (boolean v6 : families) {
          Fou.deletePort(g, family, p, v6);
        }
      }
    }
  }
}
