package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A link dump spans several messages (each link takes over a kilobyte); when another socket creates
 * and deletes links meanwhile, the kernel flags it NLM_F_DUMP_INTR (net/core/rtnetlink.c
 * rtnl_dump_ifinfo compares dev_base_seq between parts) and the library starts it over, so every
 * dump it returns is consistent.
 */
class DumpConsistencyTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void dumpsInterruptedByConcurrentChangesAreStartedOver() throws Exception {
    Node node = testbed.topology().node("a");
    try (Netns ns = Netns.named(node.netns());
        Netlink nl = Netlink.open(ns);
        Netlink churn = Netlink.open(ns)) {
      for (int i = 0; i < 60; i++) {
        nl.links().addVeth("s" + i, "t" + i);
      }
      Set<String> stable = names(nl);
      assertEquals(121, stable.size());

      AtomicBoolean stop = new AtomicBoolean();
      Thread changer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      churn.links().addVeth("x0", "x1");
                      churn.links().delete("x0");
                    }
                  });
      try {
        for (int i = 0; i < 500 && nl.dumpRetries() < 3; i++) {
          assertEquals(stable, names(nl), "dump " + i);
        }
      } finally {
        stop.set(true);
        changer.join();
      }
      assertTrue(nl.dumpRetries() > 0, "the kernel never flagged a dump as interrupted");
      System.out.println("DumpConsistencyTest: dumps started over " + nl.dumpRetries() + " times");
    }
  }

  /** The links' names, leaving out the pair being created and deleted. */
  private static Set<String> names(Netlink nl) {
    return nl.links().list().stream()
        .map(Link::name)
        .filter(n -> !n.startsWith("x"))
        .collect(Collectors.toSet());
  }
}
