package dev.sart.sartd;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * What a session reset does to sartd's heap, in small: ten times, a table of 8 MiB is learned four
 * times over (each copy promoted by the young collections it outlives, the one before it becoming
 * old garbage), then the process is quiet for a second. Prints the old generation's largest
 * committed size and what it uses at the end. {@code on}: with {@link HeapBound} (floor 16 MiB,
 * quiet after 300 ms); {@code failing}: with it, its first check failing; {@code off}: without. Run
 * by {@link HeapBoundTest} in a JVM of its own with sartd's collector.
 */
final class HeapBoundChurn {
  static volatile List<byte[]> table;

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "on" -> HeapBound.install(16L << 20, 300, UnaryOperator.identity()).orElseThrow();
      case "failing" ->
          HeapBound.install(16L << 20, 300, HeapBoundChurn::failingOnce).orElseThrow();
      default -> {}
    }
    MemoryPoolMXBean old =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getName().equals("Tenured Gen"))
            .findFirst()
            .orElseThrow();
    long peak = 0;
    for (int burst = 0; burst < 10; burst++) {
      for (int copy = 0; copy < 4; copy++) {
        List<byte[]> t = new ArrayList<>();
        for (int i = 0; i < 8192; i++) {
          t.add(new byte[1024]);
        }
        table = t;
        peak = Math.max(peak, old.getUsage().getCommitted());
      }
      table = null;
      for (int i = 0; i < 10; i++) {
        Thread.sleep(100);
        peak = Math.max(peak, old.getUsage().getCommitted());
      }
    }
    System.out.println("peak-committed " + peak + " used " + old.getUsage().getUsed());
  }

  /**
   * {@code real}, except that the first time the bound's timer asks it for the collection count it
   * throws, as a check that fails once.
   */
  private static GarbageCollectorMXBean failingOnce(GarbageCollectorMXBean real) {
    AtomicBoolean failed = new AtomicBoolean();
    return (GarbageCollectorMXBean)
        Proxy.newProxyInstance(
            GarbageCollectorMXBean.class.getClassLoader(),
            new Class<?>[] {GarbageCollectorMXBean.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getCollectionCount")
                  && Thread.currentThread().getName().equals("sartd-heap-bound")
                  && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("the first check fails");
              }
              return method.invoke(real, args);
            });
  }
}
