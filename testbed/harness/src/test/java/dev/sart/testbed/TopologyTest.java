package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The topology itself: names, addresses, bridges, and that closing it leaves nothing behind. */
class TopologyTest {

  @Test
  void everyDaemonOnABridgePeersWithAHubAndClosingLeavesNothingBehind() throws Exception {
    Topology t = Topology.create("star");
    List<Long> pids = new ArrayList<>();
    Set<String> namespaces = new HashSet<>();
    try {
      Node lan = t.bridge("lan");
      Node hub = t.node("hub");
      t.attach(hub, lan).a().address("eth1", "192.0.2.1/24");
      RouterConfig hubConfig = RouterConfig.of(65000, "192.0.2.1").originate("203.0.113.0/24");
      List<Router> spokes = new ArrayList<>();
      RouterKind[] kinds = RouterKind.values();
      for (int i = 0; i < kinds.length; i++) {
        String addr = "192.0.2." + (10 + i);
        Node n = t.node("s" + i);
        t.attach(n, lan).a().address("eth1", addr + "/24");
        hubConfig = hubConfig.neighbor(Neighbor.of(addr, 65100 + i));
        spokes.add(
            kinds[i].create(
                n, RouterConfig.of(65100 + i, addr).neighbor(Neighbor.of("192.0.2.1", 65000))));
      }
      Router hubRouter = RouterKind.BIRD.create(hub, hubConfig).start();
      spokes.forEach(Router::start);
      for (Router s : spokes) {
        s.awaitEstablished("192.0.2.1");
        s.awaitRoute("203.0.113.0/24");
      }
      assertTrue(t.nodes().stream().allMatch(n -> n.netns().startsWith(Topology.RUN_PREFIX + "-")));
      for (Node n : t.nodes()) {
        namespaces.add(n.netns());
        pids.addAll(Sweeper.pidsIn(n.netns()));
      }
      assertTrue(pids.size() >= spokes.size() + 1, "every daemon runs inside a namespace: " + pids);
      assertTrue(hubRouter.isRunning());
    } finally {
      t.close();
    }
    List<String> left = Sweeper.namespaces().stream().filter(namespaces::contains).toList();
    assertEquals(List.of(), left, "namespaces left behind");
    for (long pid : pids) {
      assertFalse(
          ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
          "process " + pid + " survived");
    }
    assertFalse(Files.exists(t.dir()), t.dir() + " left behind");
  }

  @Test
  void addressesOutsideTheDocumentationRangesAreRefused() {
    try (Topology t = Topology.create("ranges")) {
      Node a = t.node("a");
      Node b = t.node("b");
      Link l = t.link(a, b);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> a.address(l.aName(), "10.0.0.1/24"));
      assertTrue(e.getMessage().contains("10.0.0.1/24"));
      assertThrows(IllegalArgumentException.class, () -> a.address(l.aName(), "2001:db9::1/64"));
      l.addresses("198.51.100.1/24", "198.51.100.2/24").addresses("fd00::1/64", "fd00::2/64");
      assertTrue(a.exec("ip", "-br", "addr", "show", l.aName()).contains("198.51.100.1/24"));
      assertTrue(b.exec("ip", "-br", "addr", "show", l.bName()).contains("fd00::2/64"));
    }
  }

  @Test
  void closingMovesTheFilesWhereAFailedTestKeepsThem(@TempDir Path keep) throws Exception {
    Topology t = Topology.create("keep");
    Node n = t.node("r1");
    Router r = RouterKind.BIRD.create(n, RouterConfig.of(65001, "192.0.2.1")).start();
    t.preserveFilesIn(keep.resolve("kept"));
    t.close();
    assertFalse(r.isRunning());
    assertTrue(Files.readString(keep.resolve("kept/r1/bird.conf")).contains("router id 192.0.2.1"));
    assertTrue(Files.exists(keep.resolve("kept/r1/bird.log")));
  }

  @Test
  void sweeperRemovesWhatACrashedRunLeftAndSparesLiveRuns() throws Exception {
    Process gone = Programs.processBuilder("true").start();
    gone.waitFor();
    String crashed = Topology.MARK + gone.pid() + "-1";
    String ns = crashed + "-r1";
    Shell.run("ip", "netns", "add", ns);
    Path dir = Files.createDirectories(Path.of("/tmp", crashed, "r1"));
    Process orphan = Programs.processBuilder("ip", "netns", "exec", ns, "sleep", "600").start();
    try (Topology live = Topology.create("live")) {
      Node mine = live.node("r1");
      List<String> removed = Sweeper.sweep();
      assertEquals(List.of(ns), removed);
      assertFalse(Sweeper.namespaces().contains(ns));
      assertTrue(orphan.waitFor(5, java.util.concurrent.TimeUnit.SECONDS), "the orphan was ended");
      assertFalse(Files.exists(dir));
      assertTrue(
          Sweeper.namespaces().contains(mine.netns()), "a live run's namespace is left alone");
    } finally {
      orphan.destroyForcibly();
      Shell.exec(List.of("ip", "netns", "delete", ns));
    }
  }
}
