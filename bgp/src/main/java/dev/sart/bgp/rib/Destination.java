package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.Arrays;
import java.util.List;

/**
 * The paths to one prefix (Adj-RIBs-In of all peers, merged) and the current selection (Loc-RIB).
 * One per prefix, so it is kept compact: the usual single path is held inline and an array only for
 * more, the selection as its best path (or the ECMP list) plus the reason's ordinal; the {@link
 * BestPath.Selection} and path lists are built when asked for.
 *
 * <p>The prefix itself is packed into the destination: an IPv4 one as its address and length
 * ({@link V4}, 24 bytes in all with compact object headers, where a {@link Prefix} object alone
 * takes 32), an IPv6 one as its {@link Prefix} ({@link V6}). {@link #prefix()} makes the object
 * when it is needed; the route path passes the one it has instead.
 */
abstract sealed class Destination permits Destination.V4, Destination.V6 {
  private static final BestPathReason[] REASONS = BestPathReason.values();

  /** null (no path), a {@link Path}, or a {@code Path[]} of two or more. */
  private Object paths;

  /** null (nothing selected), the best {@link Path}, or an ECMP {@code List<Path>}, best first. */
  private Object selected;

  private byte reason; // a BestPathReason's ordinal

  /**
   * A new destination of {@code p}; {@code addPath}: an IPv4 one that can hold an ADD-PATH export's
   * state itself ({@link #addPathState}), 8 bytes more.
   */
  static Destination of(Prefix p, boolean addPath) {
    if (p.isIpv4()) {
      return addPath ? new V4AddPath(p) : new V4(p);
    }
    return new V6(p); // its ADD-PATH state stays in the export's map
  }

  /** Whether this destination holds an ADD-PATH export's state ({@link #addPathState}). */
  boolean holdsAddPath() {
    return false;
  }

  /** What {@link AddPathExport} keeps for this prefix, when {@link #holdsAddPath}. */
  AddPathExport.Sent[] addPathState() {
    return null;
  }

  void addPathState(AddPathExport.Sent[] state) {
    throw new UnsupportedOperationException("no ADD-PATH state in this destination");
  }

  /** The prefix, as a new object for IPv4 (keep the one you have where you have one). */
  abstract Prefix prefix();

  abstract Family family();

  /** Whether this is the destination of {@code p}. */
  abstract boolean is(Prefix p);

  /** An IPv4 destination: the address and length in two fields. */
  static sealed class V4 extends Destination permits V4AddPath {
    private final int address;
    private final byte length;

    V4(Prefix p) {
      address = p.v4Address();
      length = (byte) p.length();
    }

    @Override
    Prefix prefix() {
      return Prefix.v4(address, length);
    }

    @Override
    Family family() {
      return Family.IPV4_UNICAST;
    }

    @Override
    boolean is(Prefix p) {
      return p.length() == length && p.high() == Integer.toUnsignedLong(address) && p.isIpv4();
    }
  }

  /**
   * An IPv4 destination of a shard with an ADD-PATH peer: the state of that peer's export in the
   * destination (32 bytes in all) instead of a {@code HashMap<Prefix, ...>} entry beside it (a node
   * of 24 bytes and a lookup, two cache misses, per change: a flight recording of bgperf e had the
   * map's lookups as the largest part of the export's time).
   */
  static final class V4AddPath extends V4 {
    private AddPathExport.Sent[] addPath;

    V4AddPath(Prefix p) {
      super(p);
    }

    @Override
    boolean holdsAddPath() {
      return true;
    }

    @Override
    AddPathExport.Sent[] addPathState() {
      return addPath;
    }

    @Override
    void addPathState(AddPathExport.Sent[] state) {
      addPath = state;
    }
  }

  /** Any other destination (IPv6): its prefix. */
  static final class V6 extends Destination {
    private final Prefix prefix;

    V6(Prefix p) {
      prefix = p;
    }

    @Override
    Prefix prefix() {
      return prefix;
    }

    @Override
    Family family() {
      return prefix.family();
    }

    @Override
    boolean is(Prefix p) {
      return prefix.equals(p);
    }
  }

  int size() {
    Object o = paths;
    return o == null ? 0 : o instanceof Path ? 1 : ((Path[]) o).length;
  }

  boolean isEmpty() {
    return paths == null;
  }

  /** Reads this destination and its path (see {@link DestinationTable#touch}). */
  int touch() {
    Object o = paths;
    return o instanceof Path p ? p.pathId() : o == null ? 0 : 1;
  }

  /** The paths, as an unmodifiable list (a view: copy it to keep it beyond its shard's thread). */
  List<Path> paths() {
    Object o = paths;
    return o == null ? List.of() : o instanceof Path p ? List.of(p) : Arrays.asList((Path[]) o);
  }

  /** The paths when there are two or more (the array itself: do not change it), else null. */
  Path[] several() {
    return paths instanceof Path[] a ? a : null;
  }

  /** The single path when there is exactly one, else null. */
  Path single() {
    return paths instanceof Path p ? p : null;
  }

  /**
   * Stores the path, replacing the one from the same source and path id (implicit withdraw, §9).
   * Returns whether it is new (no path was replaced).
   */
  boolean put(Path path) {
    Object o = paths;
    if (o == null) {
      paths = path;
      return true;
    }
    if (o instanceof Path p) {
      if (same(p, path)) {
        paths = path;
        return false;
      }
      paths = new Path[] {p, path};
      return true;
    }
    Path[] a = (Path[]) o;
    for (int i = 0; i < a.length; i++) {
      if (same(a[i], path)) {
        a[i] = path;
        return false;
      }
    }
    Path[] b = Arrays.copyOf(a, a.length + 1);
    b[a.length] = path;
    paths = b;
    return true;
  }

  private static boolean same(Path p, Path q) {
    return p.source() == q.source() && p.pathId() == q.pathId();
  }

  /** The path from this source with this path id, or null. */
  Path find(RibPeer source, int pathId) {
    Object o = paths;
    if (o instanceof Path p) {
      return p.source() == source && p.pathId() == pathId ? p : null;
    }
    if (o != null) {
      for (Path p : (Path[]) o) {
        if (p.source() == source && p.pathId() == pathId) {
          return p;
        }
      }
    }
    return null;
  }

  boolean remove(RibPeer source, int pathId) {
    return removeIf(source, pathId, false) > 0;
  }

  /** Removes every path of {@code source}; returns how many there were. */
  int removeAll(RibPeer source) {
    return removeIf(source, 0, true);
  }

  private int removeIf(RibPeer source, int pathId, boolean anyId) {
    Object o = paths;
    if (o instanceof Path p) {
      if (p.source() == source && (anyId || p.pathId() == pathId)) {
        paths = null;
        return 1;
      }
      return 0;
    }
    if (o == null) {
      return 0;
    }
    Path[] a = (Path[]) o;
    int n = 0;
    Path[] keep = new Path[a.length];
    for (Path p : a) {
      if (!(p.source() == source && (anyId || p.pathId() == pathId))) {
        keep[n++] = p;
      }
    }
    if (n == a.length) {
      return 0;
    }
    paths = n == 0 ? null : n == 1 ? keep[0] : Arrays.copyOf(keep, n);
    return a.length - n;
  }

  // --- the selection
  // ------------------------------------------------------------------------------

  /** The best path, or null. */
  Path best() {
    Object s = selected;
    return s == null
        ? null
        : s instanceof Path p
            ? p
            : ((List<?>) s).isEmpty() ? null : (Path) ((List<?>) s).getFirst();
  }

  boolean hasSelection() {
    return selected != null;
  }

  @SuppressWarnings("unchecked")
  List<Path> selectedPaths() {
    Object s = selected;
    return s == null ? List.of() : s instanceof Path p ? List.of(p) : (List<Path>) s;
  }

  BestPathReason reason() {
    return REASONS[reason];
  }

  static BestPathReason reason(int ordinal) {
    return REASONS[ordinal];
  }

  BestPath.Selection selection() {
    return selected == null
        ? BestPath.Selection.NONE
        : new BestPath.Selection(selectedPaths(), reason());
  }

  /**
   * Keeps {@code s}; returns whether the selected paths changed (the reason alone does not count).
   */
  boolean select(BestPath.Selection s) {
    List<Path> l = s.selected();
    Object now = l.isEmpty() ? null : l.size() == 1 ? l.getFirst() : List.copyOf(l);
    return select(now, s.reason());
  }

  /**
   * One best path (no ECMP set), selected for {@code r} ({@code ONLY_PATH} when it is the only
   * one).
   */
  boolean selectBest(Path p, BestPathReason r) {
    return select(p, r);
  }

  private boolean select(Object now, BestPathReason r) {
    Object before = selected;
    selected = now;
    reason = (byte) r.ordinal();
    if (before == now) {
      return false;
    }
    if (before == null || now == null) {
      return true;
    }
    if (before instanceof Path || now instanceof Path) {
      return true; // one path against a list of two or more
    }
    List<?> a = (List<?>) before;
    List<?> b = (List<?>) now;
    if (a.size() != b.size()) {
      return true;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i) != b.get(i)) {
        return true; // a path stored again is a change, even with the same values
      }
    }
    return false;
  }
}
