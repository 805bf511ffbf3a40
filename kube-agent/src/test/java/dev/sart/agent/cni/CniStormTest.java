package dev.sart.agent.cni;

import static dev.sart.agent.cni.CniRuntime.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.net.Ip;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 200 pods ADDed at once, every other one DELeted right after, while the agent (a process of its
 * own) is killed with SIGKILL and restarted in the middle; every call is retried as a runtime
 * retries it. Afterwards: no address held twice, every veth and route belongs to a live pod, and
 * the pool gives exactly the addresses no pod holds (nothing leaked in the agent's memory either).
 * The plugin's code runs in this JVM here (the same code as the binary, without 600 JVM starts).
 */
class CniStormTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  static final int PODS = 200;

  /** 126 + 62 + 14 usable IPv4 addresses. */
  static final int POOL_SIZE = 202;

  @Test
  void concurrentAddAndDelWithTheAgentKilledAndRestartedLeaveAConsistentNode() throws Exception {
    Topology t = testbed.topology();
    Node node = t.node("node");
    Path socket = t.dir().resolve("sart.sock");
    Path config = t.dir().resolve("agent.json");
    Files.writeString(
        config,
        "{\"socket\":\""
            + socket
            + "\",\"hostNetns\":\"/var/run/netns/"
            + node.netns()
            + "\",\"nodeAddress4\":\"192.0.2.1\",\"defaultPool\":\"default\",\"blocks\":["
            + "{\"pool\":\"default\",\"cidr\":\"198.51.100.0/25\"},{\"pool\":\"default\",\"cidr\":\"198.51.100.128/26\"},"
            + "{\"pool\":\"default\",\"cidr\":\"198.51.100.192/28\"}]}");
    Path log = t.dir().resolve("agent.log");
    List<Node> pods = new ArrayList<>();
    for (int i = 0; i < PODS + 3; i++) {
      pods.add(t.node("s" + i));
    }
    CniRuntime runtime = new CniRuntime(socket);
    String conf = runtime.conf("1.0.0");

    AgentProcess[] agent = {AgentProcess.start(config, log)};
    AtomicInteger done = new AtomicInteger();
    AtomicInteger retries = new AtomicInteger();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 0; i < PODS; i++) {
        int n = i;
        calls.add(
            pool.submit(
                () -> {
                  call("ADD", "s" + n, pods.get(n), conf, retries);
                  done.incrementAndGet();
                  if (n % 2 == 1) {
                    call("DEL", "s" + n, pods.get(n), conf, retries);
                    done.incrementAndGet();
                  }
                  return null;
                }));
      }
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (done.get() < 100 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      agent[0].kill();
      int atKill = done.get();
      agent[0] = AgentProcess.start(config, log);
      for (Future<?> f : calls) {
        f.get();
      }
      assertTrue(
          atKill < PODS + PODS / 2,
          "the agent was killed in the middle of the storm, after " + atKill + " calls");
    }
    try {
      // the kernel: one veth and one route per live pod, each pod its own address
      Map<String, String> addressOf = new HashMap<>();
      for (int i = 0; i < PODS; i++) {
        List<String> a = podAddresses(pods.get(i));
        if (i % 2 == 1) {
          assertEquals(List.of(), a, "s" + i + " was deleted");
        } else {
          assertEquals(1, a.size(), "s" + i + ": " + a);
          addressOf.put("s" + i, a.getFirst());
        }
      }
      assertEquals(
          PODS / 2,
          new HashSet<>(addressOf.values()).size(),
          "no address held twice: " + addressOf);
      assertNodeHolds(node, addressOf);

      // the agent's memory: exactly the addresses no pod holds are left
      int free = POOL_SIZE - PODS / 2;
      List<String> extra = new ArrayList<>();
      for (int i = 0; i < free; i++) {
        Node ns = i < PODS / 2 ? pods.get(2 * i + 1) : pods.get(PODS + i - PODS / 2);
        JsonNode r =
            CniRuntime.inProcess(env("ADD", "x" + i, "/var/run/netns/" + ns.netns(), "eth0"), conf)
                .ok()
                .json();
        String a = r.path("ips").get(0).path("address").asText().split("/")[0];
        assertTrue(!addressOf.containsValue(a) && !extra.contains(a), a + " given twice");
        extra.add(a);
      }
      CniRuntime.inProcess(
              env("ADD", "one-too-many", "/var/run/netns/" + pods.get(PODS + 2).netns(), "eth0"),
              conf)
          .error(CniException.IPAM);

      // and everything goes away
      for (int i = 0; i < PODS; i += 2) {
        CniRuntime.inProcess(
                env("DEL", "s" + i, "/var/run/netns/" + pods.get(i).netns(), "eth0"), conf)
            .ok();
      }
      for (int i = 0; i < free; i++) {
        CniRuntime.inProcess(env("DEL", "x" + i, "", "eth0"), conf).ok();
      }
      assertNodeHolds(node, Map.of());
      System.out.println(
          "storm: " + PODS + " pods, " + retries.get() + " calls retried around the agent kill");
    } finally {
      agent[0].close();
    }
  }

  /** A runtime's retry: a call that fails (the agent is down or restarting) is made again. */
  private static void call(String command, String id, Node pod, String conf, AtomicInteger retries)
      throws Exception {
    long deadline = System.nanoTime() + 90_000_000_000L;
    while (true) {
      CniRuntime.Outcome o =
          CniRuntime.inProcess(env(command, id, "/var/run/netns/" + pod.netns(), "eth0"), conf);
      if (o.code() == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        fail(command + " " + id + " kept failing: " + o.stdout());
      }
      retries.incrementAndGet();
      Thread.sleep(50);
    }
  }

  private static List<String> podAddresses(Node pod) {
    try (Netns ns = Netns.named(pod.netns());
        Netlink nl = Netlink.open(ns)) {
      return nl.addresses().list(Family.INET, 0).stream()
          .filter(a -> !a.address().isLoopbackAddress())
          .map(Address::cidr)
          .map(c -> c.split("/")[0])
          .toList();
    }
  }

  /** The node's sart veths and table-120 routes are exactly those of {@code addressOf}. */
  private static void assertNodeHolds(Node node, Map<String, String> addressOf) {
    try (Netns ns = Netns.named(node.netns());
        Netlink nl = Netlink.open(ns)) {
      Set<String> aliases = new HashSet<>();
      for (Link l : nl.links().list()) {
        if (l.name().startsWith("sart")) {
          aliases.add(l.alias());
        }
      }
      Set<String> want = new HashSet<>();
      addressOf.keySet().forEach(id -> want.add("default/" + id + "/eth0"));
      assertEquals(want, aliases, "host veths");
      Set<String> routed = new HashSet<>();
      for (Route r : nl.routes().list(120)) {
        routed.add(Ip.format(r.destination().address()));
      }
      assertEquals(new HashSet<>(addressOf.values()), routed, "table 120");
    }
  }
}
