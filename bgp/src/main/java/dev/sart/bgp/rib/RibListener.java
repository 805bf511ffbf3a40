package dev.sart.bgp.rib;

/** Told on the RIB thread when the selection for a prefix changes (the FIB and API watchers). */
@FunctionalInterface
public interface RibListener {
  /** {@code now} is empty when the prefix became unreachable. */
  void selectionChanged(Prefix prefix, BestPath.Selection now);
}
