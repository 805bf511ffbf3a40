package dev.sart.bgp.rib;

import java.util.List;

/** A prefix with its paths, which of them are selected, and why the best won. */
public record RouteView(
    Prefix prefix, List<Path> paths, List<Path> selected, BestPathReason reason) {
  public boolean isSelected(Path p) {
    return selected.contains(p);
  }

  public boolean isBest(Path p) {
    return !selected.isEmpty() && selected.getFirst() == p;
  }
}
