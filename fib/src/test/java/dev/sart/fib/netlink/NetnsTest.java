package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Testbed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NetnsTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private static String currentNamespace() throws IOException {
    return Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString();
  }

  @Test
  void runExecutesTheTaskInsideTheNamespaceOnAFreshThreadEachTime() throws Exception {
    Node a = testbed.topology().node("a");
    String host = currentNamespace();
    String expected = a.exec("readlink", "/proc/self/ns/net").strip();
    Set<Long> threads = new HashSet<>();
    try (Netns ns = Netns.named(a.netns())) {
      for (int i = 0; i < 3; i++) {
        String inside =
            ns.run(
                () -> {
                  threads.add(Thread.currentThread().threadId());
                  assertTrue(!Thread.currentThread().isVirtual(), "setns needs a platform thread");
                  return currentNamespace();
                });
        assertEquals(expected, inside);
      }
    }
    assertEquals(3, threads.size(), "each task gets its own thread: " + threads);
    assertEquals(host, currentNamespace(), "the calling thread stays where it was");
  }

  @Test
  void aSocketOpenedInsideStaysInTheNamespaceWhicheverThreadUsesIt() {
    Node a = testbed.topology().node("a");
    Node b = testbed.topology().node("b");
    testbed.topology().link(a, b);
    try (Netns ns = Netns.named(a.netns());
        Netlink nl = Netlink.open(ns)) {
      Set<String> names = new HashSet<>();
      nl.links().list().forEach(l -> names.add(l.name()));
      assertEquals(
          Set.of("lo", "eth1"), names, "the links of namespace a, seen from the test thread");
    }
  }

  @Test
  void openingByMountPathOrByAProcessReachesTheSameNamespace() throws Exception {
    Node a = testbed.topology().node("a");
    String expected = a.exec("readlink", "/proc/self/ns/net").strip();
    Process sleeper = Programs.processBuilder(a.inNetns(List.of("sleep", "30"))).start();
    try {
      // ip netns exec enters the namespace, then execs sleep under the same pid
      Path proc = Path.of("/proc/" + sleeper.pid() + "/ns/net");
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (!Files.readSymbolicLink(proc).toString().equals(expected)
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      try (Netns byMount = Netns.open(Path.of("/var/run/netns", a.netns()));
          Netns byProcess = Netns.open(proc)) {
        assertEquals(expected, byMount.run(NetnsTest::currentNamespace));
        assertEquals(expected, byProcess.run(NetnsTest::currentNamespace));
        assertNotEquals(currentNamespace(), expected);
      }
    } finally {
      sleeper.destroyForcibly().waitFor();
    }
  }

  @Test
  void theTaskSExceptionsReachTheCallerUnchanged() {
    Node a = testbed.topology().node("a");
    try (Netns ns = Netns.named(a.netns())) {
      IOException thrown =
          assertThrows(
              IOException.class,
              () ->
                  ns.run(
                      () -> {
                        throw new IOException("boom");
                      }));
      assertEquals("boom", thrown.getMessage());
    }
  }

  @Test
  void aMissingNamespaceIsNamedInTheError() {
    NetlinkException e =
        assertThrows(NetlinkException.class, () -> Netns.named("sartt-no-such-namespace"));
    assertEquals(Errno.ENOENT, e.errno());
    assertTrue(
        e.getMessage()
            .startsWith(
                "open /var/run/netns/sartt-no-such-namespace: No such file or directory (ENOENT)"),
        e.getMessage());
  }
}
