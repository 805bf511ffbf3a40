package dev.sart.bgp.rib;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One ADD-PATH peer's paths in one RIB shard (RFC 7911): for each prefix of a family it is sent
 * with Path Identifiers, every path the export rules let through (or the best {@link
 * AddPathSend#maxPaths} of them), each under a Path Identifier of ours that stays the same as long
 * as the path is sent (§3: the identifier is the sender's, unique per prefix; §5: a path sent again
 * under the same identifier replaces the one the peer has). Owned by the shard's thread.
 *
 * <p>Unlike the best path's Adj-RIB-Out (which keeps nothing per route once sent) what each prefix
 * was handed over is kept here: which paths it has is not a function of the Loc-RIB's selection, so
 * it cannot be computed again. It costs one small array per prefix and ADD-PATH peer.
 */
final class AddPathExport {
  private static final int MAX = 1024;

  /** A path handed over: where it came from (its source and their Path Identifier) and ours. */
  private record Sent(RibPeer source, int sourceId, int id, Attrs attrs) {}

  final RibPeer peer;
  final AdjRibIn st;
  final AddPathSend send;
  private final Map<Prefix, Sent[]> sent = new HashMap<>();

  // changes of the running task, handed to the Adj-RIB-Out when it ends or the buffer is full
  private PathKey[] keys = new PathKey[16];
  private Attrs[] bases = new Attrs[16];
  private Attrs[] attrs = new Attrs[16];
  private int size;

  AddPathExport(RibPeer peer, AdjRibIn st, AddPathSend send) {
    this.peer = peer;
    this.st = st;
    this.send = send;
  }

  /**
   * The paths of {@code d} (which may be empty) changed, or may have: hands the peer's Adj-RIB-Out
   * what it must be sent now for {@code p}; {@code forced}: every path again (a route refresh).
   */
  void update(Destination d, Prefix p, long localAs, BestPath.Options options, boolean forced) {
    if (!send.covers(p.family())) {
      return;
    }
    List<Path> candidates = ranked(d.paths(), options);
    Sent[] was = sent.get(p);
    List<Sent> now = new ArrayList<>(candidates.size());
    List<Path> unnumbered = new ArrayList<>(0);
    List<Attrs> unnumberedAttrs = new ArrayList<>(0);
    for (Path path : candidates) {
      if (send.maxPaths() > 0 && now.size() + unnumbered.size() >= send.maxPaths()) {
        break;
      }
      Attrs a = st.export(p, path, peer, localAs);
      if (a == null) {
        continue;
      }
      Sent old = find(was, path);
      if (old != null) {
        now.add(new Sent(path.source(), path.pathId(), old.id(), a));
      } else {
        unnumbered.add(path);
        unnumberedAttrs.add(a);
      }
    }
    // new paths take the lowest identifiers free: one that a path gone just now had is reused, so
    // the peer gets a replacement, not a withdrawal and an announcement (§5)
    int next = 1;
    for (int i = 0; i < unnumbered.size(); i++) {
      while (taken(now, next)) {
        next++;
      }
      Path path = unnumbered.get(i);
      now.add(new Sent(path.source(), path.pathId(), next, unnumberedAttrs.get(i)));
    }
    for (Sent s : now) {
      Sent before = byId(was, s.id());
      Attrs base = before == null ? null : before.attrs();
      if (forced || !s.attrs().equals(base)) {
        add(new PathKey(p, s.id()), base, s.attrs());
      }
    }
    if (was != null) {
      for (Sent s : was) {
        if (!taken(now, s.id())) {
          add(new PathKey(p, s.id()), s.attrs(), null);
        }
      }
    }
    if (now.isEmpty()) {
      sent.remove(p);
    } else {
      sent.put(p, now.toArray(Sent[]::new));
    }
    if (forced) {
      flush(true);
    }
  }

  /**
   * The candidates in the order they are sent: all of them as they are (all are sent), or ranked by
   * the decision process (RFC 4271 §9.1.2) when only the best few are.
   */
  private List<Path> ranked(List<Path> paths, BestPath.Options options) {
    if (send.maxPaths() == 0 || paths.size() <= 1) {
      return paths;
    }
    BestPath.Options single =
        new BestPath.Options(false, options.asPathRelax(), options.alwaysCompareMed());
    List<Path> left = new ArrayList<>(paths);
    List<Path> ranked = new ArrayList<>(paths.size());
    while (!left.isEmpty() && ranked.size() < paths.size()) {
      Path best = BestPath.select(left, single).best();
      ranked.add(best);
      left.remove(best);
    }
    return ranked;
  }

  private static Sent find(Sent[] was, Path path) {
    if (was != null) {
      for (Sent s : was) {
        if (s.source() == path.source() && s.sourceId() == path.pathId()) {
          return s;
        }
      }
    }
    return null;
  }

  private static Sent byId(Sent[] was, int id) {
    if (was != null) {
      for (Sent s : was) {
        if (s.id() == id) {
          return s;
        }
      }
    }
    return null;
  }

  private static boolean taken(List<Sent> now, int id) {
    for (Sent s : now) {
      if (s.id() == id) {
        return true;
      }
    }
    return false;
  }

  private void add(PathKey k, Attrs base, Attrs a) {
    if (size == keys.length) {
      if (size == MAX) {
        flush(false);
      } else {
        keys = Arrays.copyOf(keys, size * 2);
        bases = Arrays.copyOf(bases, size * 2);
        attrs = Arrays.copyOf(attrs, size * 2);
      }
    }
    keys[size] = k;
    bases[size] = base;
    attrs[size] = a;
    size++;
  }

  /** Hands the changes of the running task to the peer's Adj-RIB-Out. */
  void flush() {
    flush(false);
  }

  private void flush(boolean forced) {
    if (size > 0) {
      peer.out().recordPaths(keys, bases, attrs, size, forced);
      Arrays.fill(keys, 0, size, null);
      Arrays.fill(bases, 0, size, null);
      Arrays.fill(attrs, 0, size, null);
      size = 0;
    }
  }
}
