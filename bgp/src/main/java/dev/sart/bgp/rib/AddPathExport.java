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
 * it cannot be computed again. It costs one small array per prefix and ADD-PATH peer, kept in an
 * IPv4 prefix's {@link Destination} for the shard's first ADD-PATH peer ({@link #inDestinations}),
 * in a map by prefix otherwise (IPv6, other peers, destinations made before that peer came up). A
 * path whose exported attributes did not change keeps its record: a change of one path of a prefix
 * allocates nothing for the others.
 */
final class AddPathExport {
  private static final int MAX = 1024;

  /**
   * A path handed over: where it came from (its source and their Path Identifier) and ours. What a
   * prefix was handed is a {@code Sent[]}, in the prefix's {@link Destination} or {@link #sent}.
   */
  record Sent(RibPeer source, int sourceId, int id, Attrs attrs) {}

  final RibPeer peer;
  final AdjRibIn st;
  final AddPathSend send;
  private final Map<Prefix, Sent[]> sent = new HashMap<>();

  // changes of the running task, handed to the Adj-RIB-Out when it ends or the buffer is full
  private PathKey[] keys = new PathKey[16];
  private Attrs[] bases = new Attrs[16];
  private Attrs[] attrs = new Attrs[16];
  private int size;

  // scratch of update (the shard's thread only)
  private Sent[] scratch = new Sent[4];
  private Path[] unnumbered = new Path[4];
  private Attrs[] unnumberedAttrs = new Attrs[4];
  private final Path[] one = new Path[1];

  /**
   * Whether this export keeps its state in the destinations that have room for it ({@link
   * Destination#holdsAddPath}; one export per shard, see {@link RibShard}) rather than in {@link
   * #sent}.
   */
  boolean inDestinations;

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
    boolean inD = inDestinations && d.holdsAddPath();
    Sent[] was = inD ? d.addPathState() : sent.get(p);
    Path[] candidates = candidates(d, options);
    int n = candidates == null ? 0 : candidates.length;
    if (scratch.length < n) {
      scratch = new Sent[n];
      unnumbered = new Path[n];
      unnumberedAttrs = new Attrs[n];
    }
    Sent[] now = scratch;
    int kept = 0;
    int fresh = 0;
    int max = send.maxPaths();
    for (int i = 0; i < n; i++) {
      if (max > 0 && kept + fresh >= max) {
        break;
      }
      Path path = candidates[i];
      Attrs a = st.export(p, path, peer, localAs);
      if (a == null) {
        continue;
      }
      Sent old = find(was, path);
      if (old == null) {
        unnumbered[fresh] = path;
        unnumberedAttrs[fresh++] = a;
      } else {
        // unchanged: the record sent before stays (nothing new per path and change)
        now[kept++] =
            old.attrs().equals(a) ? old : new Sent(old.source(), old.sourceId(), old.id(), a);
      }
    }
    // new paths take the lowest identifiers free: one that a path gone just now had is reused, so
    // the peer gets a replacement, not a withdrawal and an announcement (§5)
    int size = kept;
    int next = 1;
    for (int i = 0; i < fresh; i++) {
      while (taken(now, size, next)) {
        next++;
      }
      Path path = unnumbered[i];
      now[size++] = new Sent(path.source(), path.pathId(), next, unnumberedAttrs[i]);
      unnumbered[i] = null;
      unnumberedAttrs[i] = null;
    }
    one[0] = null;
    for (int i = 0; i < size; i++) {
      Sent s = now[i];
      Sent before = byId(was, s.id());
      if (before == s && !forced) {
        continue; // sent before as it is
      }
      Attrs base = before == null ? null : before.attrs();
      if (forced || !s.attrs().equals(base)) {
        add(new PathKey(p, s.id()), base, s.attrs());
      }
    }
    if (was != null) {
      for (Sent s : was) {
        if (!taken(now, size, s.id())) {
          add(new PathKey(p, s.id()), s.attrs(), null);
        }
      }
    }
    store(d, p, inD, was, now, size);
    if (forced) {
      flush(true);
    }
  }

  /** Keeps {@code now[0..size)} as what {@code p} was handed (unless it is {@code was} again). */
  private void store(Destination d, Prefix p, boolean inD, Sent[] was, Sent[] now, int size) {
    Sent[] keep = null;
    if (size > 0) {
      keep = same(was, now, size) ? was : Arrays.copyOf(now, size);
    }
    Arrays.fill(now, 0, size, null);
    if (keep == was) {
      return;
    }
    if (inD) {
      d.addPathState(keep);
    } else if (keep == null) {
      sent.remove(p);
    } else {
      sent.put(p, keep);
    }
  }

  private static boolean same(Sent[] was, Sent[] now, int size) {
    if (was == null || was.length != size) {
      return false;
    }
    for (int i = 0; i < size; i++) {
      if (was[i] != now[i]) {
        return false;
      }
    }
    return true;
  }

  /** The paths of {@code d} in the order they are considered, or null when it has none. */
  private Path[] candidates(Destination d, BestPath.Options options) {
    Path single = d.single();
    if (single != null) {
      one[0] = single;
      return one;
    }
    Path[] several = d.several();
    if (several == null || send.maxPaths() == 0) {
      return several;
    }
    return ranked(d.paths(), options).toArray(Path[]::new);
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

  private static boolean taken(Sent[] now, int size, int id) {
    for (int i = 0; i < size; i++) {
      if (now[i].id() == id) {
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
