package dev.sart.bgp.rib;

/**
 * Told when the selection for a prefix changes (the FIB and API watchers): on the thread of the RIB
 * shard that owns the prefix, so concurrently for prefixes of different shards (see {@link Rib}).
 */
@FunctionalInterface
public interface RibListener {
  /** {@code now} is empty when the prefix became unreachable. */
  void selectionChanged(Prefix prefix, BestPath.Selection now);
}
