package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A random sequence of adds, replaces and deletes of IPv4 and IPv6 routes, single-path and ECMP
 * with weights (some IPv4 ones via IPv6 gateways), sent one by one and in batches, leaves the
 * kernel table equal to a model of it: checked with this library's dump and with {@code ip -j route
 * show table N}, and every request's outcome (success, EEXIST, ESRCH) is checked against the model
 * too.
 *
 * <p>The seed is printed; {@code -Dsart.seed=N} replays a run.
 */
class RoutesPropertyTest {
  private static final int TABLE = 4242;
  private static final int STEPS = 400;

  @RegisterExtension final Testbed testbed = new Testbed();

  /**
   * A route's identity in its table: destination and metric (the kernel's key for both families).
   */
  private record Key(IpPrefix destination, int metric) {}

  /** One request and the errno the model expects for it (0: success). */
  private record Op(String verb, Route route, int expectedErrno) {}

  @Test
  void randomAddsReplacesAndDeletesLeaveTheTableEqualToTheModel() {
    long seed = Long.getLong("sart.seed", new Random().nextLong());
    System.out.println(
        "RoutesPropertyTest seed=" + seed + " (replay with -Dsart.seed=" + seed + ")");
    Random rnd = new Random(seed);

    Node node = testbed.topology().node("a");
    try (Netns ns = Netns.named(node.netns());
        Netlink nl = Netlink.open(ns)) {
      nl.links().addVeth("v0", "v1");
      nl.links().setUp("v0");
      nl.links().setUp("v1");
      int v0 = nl.links().get("v0").index();
      Map<Integer, String> ifnames = new HashMap<>();
      nl.links().list().forEach(l -> ifnames.put(l.index(), l.name()));
      nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
      nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));

      List<IpPrefix> prefixes = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        prefixes.add(IpPrefix.parse("198.51.100." + (i * 32) + "/27"));
        prefixes.add(IpPrefix.parse("2001:db8:" + (i + 1) + "::/48"));
      }
      prefixes.add(IpPrefix.parse("203.0.113.0/24"));
      prefixes.add(IpPrefix.parse("203.0.113.0/25"));
      List<String> gateways4 =
          List.of("192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5");
      List<String> gateways6 =
          List.of("fd00:1::1", "fd00:1::2", "fd00:1::3", "fd00:1::4", "fd00:1::5");

      Map<Key, Route> model = new LinkedHashMap<>();
      int checks = 0;
      for (int step = 0; step < STEPS; step++) {
        int n = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(20) : 1; // a quarter of the steps are batches
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          IpPrefix p = prefixes.get(rnd.nextInt(prefixes.size()));
          boolean v4 = p.isIpv4();
          int metric = v4 ? 10 * (1 + rnd.nextInt(2)) : 1024 * (1 + rnd.nextInt(2));
          Key key = new Key(p, metric);
          int what = rnd.nextInt(10);
          if (what < 4) {
            Route r = random(rnd, p, metric, v4 ? gateways4 : gateways6, gateways6, v0);
            ops.add(new Op("add", r, model.containsKey(key) ? Errno.EEXIST : 0));
            model.putIfAbsent(key, r);
          } else if (what < 7) {
            Route r = random(rnd, p, metric, v4 ? gateways4 : gateways6, gateways6, v0);
            ops.add(new Op("replace", r, 0));
            model.put(key, r);
          } else {
            Route existing = model.get(key);
            // by its exact next hops, or by destination and metric alone
            Route target =
                existing != null && rnd.nextBoolean()
                    ? existing
                    : Route.of(p).table(TABLE).protocol(Rtnl.RTPROT_BGP).metric(metric).build();
            ops.add(new Op("delete", target, existing == null ? Errno.ESRCH : 0));
            model.remove(key);
          }
        }
        apply(nl, ops, seed, step);
        if (step % 20 == 19 || step == STEPS - 1) {
          checks++;
          String where = "seed " + seed + ", after step " + step;
          assertSame(
              Set.copyOf(model.values()),
              Set.copyOf(nl.routes().list(TABLE)),
              "our dump, " + where);
          TreeSet<String> ip = RouteOracle.table(node, Family.INET, TABLE);
          ip.addAll(RouteOracle.table(node, Family.INET6, TABLE));
          assertSame(
              RouteOracle.of(List.copyOf(model.values()), ifnames), ip, "ip -j route, " + where);
        }
      }
      System.out.println(
          "RoutesPropertyTest: "
              + STEPS
              + " steps, "
              + checks
              + " checks, "
              + model.size()
              + " routes at the end");
    }
  }

  /** Equal sets, or a failure listing what is missing and what is unexpected. */
  private static <T> void assertSame(Set<T> expected, Set<T> actual, String what) {
    Set<T> missing = new java.util.HashSet<>(expected);
    missing.removeAll(actual);
    Set<T> unexpected = new java.util.HashSet<>(actual);
    unexpected.removeAll(expected);
    if (!missing.isEmpty() || !unexpected.isEmpty()) {
      fail(what + ": missing " + missing + ", unexpected " + unexpected);
    }
  }

  private static void apply(Netlink nl, List<Op> ops, long seed, int step) {
    if (ops.size() == 1) {
      Op op = ops.getFirst();
      try {
        switch (op.verb()) {
          case "add" -> nl.routes().add(op.route());
          case "replace" -> nl.routes().replace(op.route());
          default -> nl.routes().delete(op.route());
        }
        if (op.expectedErrno() != 0) {
          fail(
              op.verb()
                  + " "
                  + op.route()
                  + " succeeded, expected "
                  + Errno.name(op.expectedErrno())
                  + " (seed "
                  + seed
                  + ", step "
                  + step
                  + ")");
        }
      } catch (NetlinkException e) {
        assertEquals(
            Errno.name(op.expectedErrno()),
            Errno.name(e.errno()),
            e.getMessage() + " (seed " + seed + ", step " + step + ")");
      }
      return;
    }
    Batch b = nl.batch();
    for (Op op : ops) {
      switch (op.verb()) {
        case "add" -> b.addRoute(op.route());
        case "replace" -> b.replaceRoute(op.route());
        default -> b.deleteRoute(op.route());
      }
    }
    BatchResult result = b.execute();
    for (int i = 0; i < ops.size(); i++) {
      NetlinkException e = result.failure(i);
      if (ops.get(i).expectedErrno() == 0) {
        assertNull(e, "batch request " + i + " (seed " + seed + ", step " + step + ")");
      } else {
        assertEquals(
            Errno.name(ops.get(i).expectedErrno()),
            e == null ? "success" : Errno.name(e.errno()),
            "batch request " + i + " " + ops.get(i) + " (seed " + seed + ", step " + step + ")");
      }
    }
  }

  /**
   * One to four distinct gateways with weights 1..10; IPv4 routes sometimes via IPv6 gateways
   * (RTA_VIA).
   */
  private static Route random(
      Random rnd, IpPrefix p, int metric, List<String> gateways, List<String> gateways6, int dev) {
    List<String> pool = new ArrayList<>(gateways);
    if (p.isIpv4() && rnd.nextInt(4) == 0) {
      pool.addAll(gateways6);
    }
    Collections.shuffle(pool, rnd);
    int count = 1 + rnd.nextInt(4);
    List<NextHop> hops = new ArrayList<>();
    for (String gw : pool.subList(0, count)) {
      hops.add(NextHop.via(gw, dev).withWeight(1 + rnd.nextInt(10)));
    }
    return Route.of(p).table(TABLE).protocol(Rtnl.RTPROT_BGP).metric(metric).nextHops(hops).build();
  }
}
