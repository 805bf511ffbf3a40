package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import dev.sart.net.IpPrefix;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A channel's routes: per destination what each source offers, and the one selected — the lowest
 * administrative distance; between equal distances the source listed first. Pure: events in,
 * changes of the selection out. Owned by the channel's thread.
 */
final class ChannelRib {
  /** The selection for a destination changed: {@code selected} is null when nothing is left. */
  record Change(IpPrefix destination, ChannelRoute selected) {}

  private final List<Map<IpPrefix, ChannelRoute>> bySource = new ArrayList<>();
  private final Map<IpPrefix, ChannelRoute> selected = new HashMap<>();

  ChannelRib(int sources) {
    for (int i = 0; i < sources; i++) {
      bySource.add(new HashMap<>());
    }
  }

  /** Applies an event; returns the destinations whose selected route changed. */
  List<Change> apply(SourceEvent e) {
    Map<IpPrefix, ChannelRoute> offered = bySource.get(e.source());
    List<Change> changes = new ArrayList<>();
    switch (e) {
      case SourceEvent.Update u -> {
        offered.put(u.route().destination(), u.route());
        reselect(u.route().destination(), changes);
      }
      case SourceEvent.Withdraw w -> {
        if (offered.remove(w.destination()) != null) {
          reselect(w.destination(), changes);
        }
      }
      case SourceEvent.Sync s -> {
        Set<IpPrefix> touched = new HashSet<>();
        offered
            .keySet()
            .removeIf(
                p -> {
                  if (Family.of(p) == s.family()) {
                    touched.add(p);
                    return true;
                  }
                  return false;
                });
        for (ChannelRoute r : s.routes()) {
          if (Family.of(r.destination()) != s.family()) {
            throw new IllegalArgumentException(
                "a sync of " + s.family() + " holds " + r.destination());
          }
          offered.put(r.destination(), r);
          touched.add(r.destination());
        }
        touched.forEach(p -> reselect(p, changes));
      }
    }
    return changes;
  }

  private void reselect(IpPrefix p, List<Change> changes) {
    ChannelRoute best = null;
    for (Map<IpPrefix, ChannelRoute> m : bySource) {
      ChannelRoute r = m.get(p);
      if (r != null && (best == null || r.distance() < best.distance())) {
        best = r;
      }
    }
    ChannelRoute before = best == null ? selected.remove(p) : selected.put(p, best);
    if (!Objects.equals(before, best)) {
      changes.add(new Change(p, best));
    }
  }

  /** The selected route of every destination (a view: read on the owner thread only). */
  Map<IpPrefix, ChannelRoute> selected() {
    return selected;
  }
}
