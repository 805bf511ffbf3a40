package dev.sart.cli;

import dev.sart.crds.NodeBGP;
import dev.sart.net.IpPrefix;
import dev.sart.proto.v1.LookupRouteResponse;
import dev.sart.proto.v1.NextHop;
import dev.sart.proto.v1.Route;
import dev.sart.proto.v1.RouteLink;
import java.util.ArrayList;
import java.util.List;

/**
 * The last link of {@code explain pod}: the kernels' routes to the pod, as each node's FIB daemon
 * reads them ({@code FibManagerApi.LookupRoute}, {@code ip route get ADDR fibmatch}). On the pod's
 * node the address must lead to the pod's veth (the agent's host route); on every other node with a
 * speaker it must be covered by the block's route, which the node's FIB installs from what its
 * speaker learnt. The CLI runs no netlink itself: the kernels are on the nodes.
 */
final class KernelRoutes {
  private KernelRoutes() {}

  /**
   * @param nodes the NodeBGPs (nodes that run a speaker and, with it, a FIB)
   */
  static Link routes(
      Fibs fibs, Speakers speakers, String ip, String block, String podNode, List<NodeBGP> nodes) {
    Link l = Link.ok("routes", "", "");
    List<NodeBGP> others = new ArrayList<>();
    NodeBGP own = null;
    for (NodeBGP n : nodes) {
      if (n.getMetadata().getName().equals(podNode)) {
        own = n;
      } else {
        others.add(n);
      }
    }
    l.add(podNode(fibs, speakers, ip, podNode, own));
    others.forEach(n -> l.add(otherNode(fibs, speakers, ip, block, podNode, n)));
    long bad = l.children.stream().filter(Link::isBroken).count();
    l.summary =
        "kernel routes to "
            + ip
            + " on "
            + l.children.size()
            + " node(s)"
            + (bad == 0 ? "" : ", " + bad + " broken");
    return l;
  }

  /**
   * Why the FIB at the address derived from {@code nb}'s speaker cannot be taken for the node's, or
   * null: a derived address is the speaker's host, and when the speaker there answers as another
   * node (Speakers.notOf: a node-local address), so does the FIB beside it.
   */
  private static String notOf(Fibs fibs, Speakers speakers, String node, NodeBGP nb) {
    if (nb == null || fibs.given(node)) {
      return null;
    }
    String path = speakerPath(nb);
    String other = speakers.notOf(path == null ? "127.0.0.1:5000" : path, nb);
    return other == null ? null : "its FIB is reached at its speaker's host, and " + other;
  }

  private static String speakerPath(NodeBGP n) {
    return n == null || n.getSpec() == null || n.getSpec().speaker() == null
        ? null
        : n.getSpec().speaker().path();
  }

  /** The pod's node: the address must go to a link (the pod's veth) that is up. */
  private static Link podNode(Fibs fibs, Speakers speakers, String ip, String node, NodeBGP nb) {
    String endpoint = fibs.endpoint(node, speakerPath(nb));
    String name = node + " (the pod's)";
    String other = notOf(fibs, speakers, node, nb);
    if (other != null) {
      return unchecked(name, other, node);
    }
    String fix =
        "the agent on "
            + node
            + " makes "
            + ip
            + " dev <the pod's veth> in its pod table (120) at the pod's CNI ADD and restores it at"
            + " its start-up: see its log and `ip route show table 120` there; recreating the pod"
            + " makes it again";
    Fibs.Answer a = fibs.lookup(endpoint, ip);
    if (a.route() == null) {
      return unchecked(name, a.error(), node);
    }
    LookupRouteResponse r = a.route();
    if (!r.getFound()) {
      return Link.broken("kernel", name, "no route to " + ip + " (" + endpoint + ")", fix);
    }
    Route route = r.getRoute();
    boolean host =
        IpPrefix.parseCidr(route.getDestination()).length() == (ip.contains(":") ? 128 : 32);
    boolean onLink = route.getNextHopsCount() == 1 && route.getNextHops(0).getGateway().isEmpty();
    if (!host || !onLink) {
      return Link.broken(
          "kernel", name, ip + " is sent by " + describe(r) + ", not to the pod's veth", fix);
    }
    RouteLink link = r.getLinks(0);
    if (!link.getUp()) {
      return Link.broken(
          "kernel",
          name,
          describe(r) + ": the pod's veth " + link.getName() + " is down (or lost its peer)",
          "the pod's network namespace or its end of the veth is gone: recreate the pod");
    }
    return Link.ok("kernel", name, describe(r) + ", link up");
  }

  /** Another node: the block's route (or a more specific one) must cover the address. */
  private static Link otherNode(
      Fibs fibs, Speakers speakers, String ip, String block, String podNode, NodeBGP nb) {
    String node = nb.getMetadata().getName();
    String endpoint = fibs.endpoint(node, speakerPath(nb));
    String other = notOf(fibs, speakers, node, nb);
    if (other != null) {
      return unchecked(node, other, node);
    }
    Fibs.Answer a = fibs.lookup(endpoint, ip);
    if (a.route() == null) {
      return unchecked(node, a.error(), node);
    }
    LookupRouteResponse r = a.route();
    String fix =
        node
            + "'s FIB installs "
            + block
            + " as its speaker learns it from its peers: check that they send it (`sart bgp global"
            + " rib -e "
            + speakerPath(nb)
            + "`), then the FIB's channel (`sart fib channel route NAME -e "
            + endpoint
            + "`)";
    if (!r.getFound()) {
      return Link.broken("kernel", node, "no route to " + ip + ": pods there cannot reach it", fix);
    }
    if (r.getRoute().getType() != dev.sart.proto.v1.Type.Unicast) {
      return Link.broken("kernel", node, describe(r) + " drops what goes to " + ip, fix);
    }
    int length = IpPrefix.parseCidr(r.getRoute().getDestination()).length();
    int blockLength = IpPrefix.parseCidr(block).length();
    if (length >= blockLength) {
      return Link.ok("kernel", node, describe(r));
    }
    return new Link(
        "kernel",
        node,
        Link.State.warning,
        "no route for "
            + block
            + ": "
            + ip
            + " goes by "
            + describe(r)
            + ", which reaches "
            + podNode
            + " only if the next router has the block");
  }

  private static Link unchecked(String name, String error, String node) {
    Link w = new Link("kernel", name, Link.State.warning, "not checked: " + error);
    w.fix =
        "pass --fib " + node + "=HOST:PORT (its FibManagerApi, e.g. through kubectl port-forward)";
    return w;
  }

  /** {@code 198.51.100.0/28 via 192.0.2.1 dev eth0 (table 254, proto 186)}. */
  static String describe(LookupRouteResponse r) {
    Route route = r.getRoute();
    StringBuilder b = new StringBuilder(route.getDestination());
    for (int i = 0; i < route.getNextHopsCount(); i++) {
      NextHop h = route.getNextHops(i);
      if (i > 0) {
        b.append(',');
      }
      if (!h.getGateway().isEmpty()) {
        b.append(" via ").append(h.getGateway());
      }
      String dev = i < r.getLinksCount() ? r.getLinks(i).getName() : "";
      if (!dev.isEmpty()) {
        b.append(" dev ").append(dev);
      }
    }
    if (route.getType() != dev.sart.proto.v1.Type.Unicast) {
      b.append(" type ").append(route.getType().name().toLowerCase(java.util.Locale.ROOT));
    }
    return b.append(" (table ")
        .append(route.getTable())
        .append(", proto ")
        .append(route.getProtocolValue())
        .append(')')
        .toString();
  }
}
