package dev.sart.bgp.rib;

import java.util.ArrayList;
import java.util.List;

/** The paths to one prefix (Adj-RIBs-In of all peers, merged) and the current selection (Loc-RIB). */
final class Destination {
  final Prefix prefix;
  final List<Path> paths = new ArrayList<>(2);
  BestPath.Selection selection = BestPath.Selection.NONE;

  Destination(Prefix prefix) {
    this.prefix = prefix;
  }

  /**
   * Stores the path, replacing the one from the same source and path id (implicit withdraw, §9).
   * Returns whether it is new (no path was replaced).
   */
  boolean put(Path path) {
    for (int i = 0; i < paths.size(); i++) {
      Path p = paths.get(i);
      if (p.source() == path.source() && p.pathId() == path.pathId()) {
        paths.set(i, path);
        return false;
      }
    }
    paths.add(path);
    return true;
  }

  /** The path from this source with this path id, or null. */
  Path find(RibPeer source, int pathId) {
    for (Path p : paths) {
      if (p.source() == source && p.pathId() == pathId) {
        return p;
      }
    }
    return null;
  }

  boolean remove(RibPeer source, int pathId) {
    return paths.removeIf(p -> p.source() == source && p.pathId() == pathId);
  }

  /** Removes every path of {@code source}; returns how many there were. */
  int removeAll(RibPeer source) {
    int before = paths.size();
    paths.removeIf(p -> p.source() == source);
    return before - paths.size();
  }
}
