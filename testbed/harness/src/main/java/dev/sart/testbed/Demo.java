package dev.sart.testbed;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The main job until the speaker exists (bin/demo): a top-of-rack router and a node router in
 * network namespaces, peering over IPv4 and IPv6; the node announces a service address and the
 * top-of-rack router's own CLI shows it. {@code --keep} waits for Enter before cleaning up so the
 * namespaces can be explored.
 */
public final class Demo {
  private Demo() {}

  public static void main(String[] args) throws Exception {
    boolean keep = java.util.List.of(args).contains("--keep");
    RouterKind torKind = RouterKind.FRR;
    RouterKind nodeKind = RouterKind.BIRD;
    try (Topology t = Topology.create("demo")) {
      Node tor = t.node("tor");
      Node node = t.node("node");
      t.link(tor, node).addresses("192.0.2.1/24", "192.0.2.2/24").addresses("2001:db8::1/64", "2001:db8::2/64");
      say("topology %s: namespace %s (ToR, %s, AS 65000) <-> namespace %s (node, %s, AS 65001)",
          t.id(), tor.netns(), torKind, node.netns(), nodeKind);

      Router torRouter = torKind.create(tor, RouterConfig.of(65000, "192.0.2.1")
          .neighbor(Neighbor.of("192.0.2.2", 65001)).neighbor(Neighbor.of("2001:db8::2", 65001))).start();
      Router nodeRouter = nodeKind.create(node, RouterConfig.of(65001, "192.0.2.2")
          .neighbor(Neighbor.of("192.0.2.1", 65000)).neighbor(Neighbor.of("2001:db8::1", 65000))).start();

      torRouter.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
      say("sessions: IPv4 %s, IPv6 %s", torRouter.sessionState("192.0.2.2"), torRouter.sessionState("2001:db8::2"));

      String service = "203.0.113.10/32";
      String service6 = "2001:db8:100::10/128";
      say("node announces the service addresses %s and %s", service, service6);
      nodeRouter.announce(service);
      nodeRouter.announce(service6);
      Route r = torRouter.awaitRoute(service);
      Route r6 = torRouter.awaitRoute(service6);
      say("ToR learned %s via %s, AS path %s", r.prefix(), Addresses.format(r.nextHop()), r.asPath());
      say("ToR learned %s via %s, AS path %s", r6.prefix(), Addresses.format(r6.nextHop()), r6.asPath());
      if (torRouter instanceof Frr frr) {
        say("the ToR's own CLI (vtysh -c 'show bgp ipv4 unicast %s'):%n%s", service,
            frr.vtysh("show bgp ipv4 unicast " + service));
      }

      nodeRouter.withdraw(service);
      torRouter.awaitNoRoute(service);
      say("node withdrew %s; the ToR no longer has it", service);

      if (keep) {
        say("--keep: explore with e.g. `ip netns exec %s vtysh --vty_socket %s -c 'show bgp summary'`;"
            + " press Enter to clean up", tor.netns(), tor.dir().resolve("frr"));
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      }
    }
    say("cleaned up: namespaces removed, daemons stopped");
  }

  private static void say(String format, Object... args) {
    System.out.println("demo: " + String.format(format, args));
  }
}
