package dev.sart.bgp.server;

import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibListener;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the FIB would be told of a RIB: each prefix whose selection became empty, with when (epoch
 * ms), in order.
 */
final class Withdrawals {
  private final ConcurrentLinkedQueue<String> prefixes = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();

  private Withdrawals() {}

  /** Starts recording {@code rib}'s withdrawals. */
  static Withdrawals of(Rib rib) {
    Withdrawals w = new Withdrawals();
    rib.addListener(
        (RibListener)
            (prefix, now) -> {
              if (now.selected().isEmpty()) {
                w.prefixes.add(prefix.toString());
                w.times.add(System.currentTimeMillis());
              }
            });
    return w;
  }

  /** The prefixes withdrawn so far, in order. */
  List<String> prefixes() {
    return List.copyOf(prefixes);
  }

  boolean contains(String prefix) {
    return prefixes.contains(prefix);
  }

  /** When each withdrawal happened (epoch ms), in order. */
  List<Long> times() {
    return List.copyOf(times);
  }
}
