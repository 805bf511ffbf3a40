package dev.sart.bgp.rib;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The decision process of RFC 4271 §9.1.2.2, written as the RFC writes it: a sequence of steps each
 * removing candidates, so MED (comparable only between paths from the same neighbouring AS) stays
 * correct. The steps after eBGP-over-iBGP only break ties; with multipath the paths left before
 * them form the ECMP set.
 */
public final class BestPath {

  /**
   * @param multipath select several equal paths (ECMP)
   * @param asPathRelax multipath across different neighbouring ASes with equally long paths
   * @param alwaysCompareMed compare MED between paths from different ASes too
   */
  public record Options(boolean multipath, boolean asPathRelax, boolean alwaysCompareMed) {
    public static final Options DEFAULT = new Options(false, false, false);
  }

  /**
   * The outcome: the best path first, then the other paths of the ECMP set, and why the best won.
   */
  public record Selection(List<Path> selected, BestPathReason reason) {
    public static final Selection NONE = new Selection(List.of(), BestPathReason.ONLY_PATH);

    public Path best() {
      return selected.isEmpty() ? null : selected.getFirst();
    }
  }

  private BestPath() {}

  public static Selection select(List<Path> paths, Options options) {
    if (paths.isEmpty()) {
      return Selection.NONE;
    }
    if (paths.size() == 1) {
      return new Selection(List.of(paths.getFirst()), BestPathReason.ONLY_PATH);
    }
    List<Path> c = new ArrayList<>(paths);
    // (a) highest degree of preference: LOCAL_PREF, 100 when absent (§5.1.5 default)
    if (keepMax(c, p -> p.attrs().localPref < 0 ? 100 : p.attrs().localPref)) {
      return new Selection(List.of(c.getFirst()), BestPathReason.LOCAL_PREF);
    }
    // operators' rule: a path we originate wins over a learned one
    if (keepMax(c, p -> p.isLocal() ? 1 : 0)) {
      return new Selection(List.of(c.getFirst()), BestPathReason.LOCALLY_ORIGINATED);
    }
    // (a) shortest AS_PATH: an AS_SET counts 1, confederation segments 0 (RFC 5065 §5.3)
    if (keepMin(c, p -> p.attrs().asPathLength)) {
      return new Selection(List.of(c.getFirst()), BestPathReason.AS_PATH_LENGTH);
    }
    // (b) lowest ORIGIN
    if (keepMin(c, p -> p.attrs().origin)) {
      return new Selection(List.of(c.getFirst()), BestPathReason.ORIGIN);
    }
    // (c) lowest MED among paths from the same neighbouring AS; a missing MED is the lowest (0)
    if (medStep(c, options.alwaysCompareMed())) {
      return new Selection(List.of(c.getFirst()), BestPathReason.MED);
    }
    // (d) eBGP over iBGP (locally originated paths count as iBGP here)
    if (keepMax(c, p -> !p.isLocal() && !p.source().internal() ? 1 : 0)) {
      return new Selection(List.of(c.getFirst()), BestPathReason.EBGP_OVER_IBGP);
    }
    // (e) IGP cost to the next hop: no IGP here, all equal.
    List<Path> ecmp = options.multipath() ? multipathSet(c, options.asPathRelax()) : List.of();
    List<Path> tie = new ArrayList<>(c);
    BestPathReason reason = tieBreak(tie);
    Path best = tie.getFirst();
    if (ecmp.size() > 1) {
      List<Path> selected = new ArrayList<>();
      selected.add(best);
      for (Path p : ecmp) {
        if (p != best) {
          selected.add(p);
        }
      }
      return new Selection(List.copyOf(selected), BestPathReason.MULTIPATH);
    }
    return new Selection(List.of(best), reason);
  }

  /**
   * The decision between exactly two paths without multipath, as {@link #select} decides it but
   * with no list and no allocation (the usual case of a prefix learned from two peers): the
   * winner's index (0 for {@code a}, 1 for {@code b}) in bit 0, the reason's ordinal above it. With
   * two candidates every elimination step is a comparison of the pair; where all steps tie, the
   * lower neighbour address wins, and {@code a} on equal addresses, as the stable sort does.
   */
  static int selectTwo(Path a, Path b, Options options) {
    Attrs x = a.attrs();
    Attrs y = b.attrs();
    int c = Long.compare(y.localPref < 0 ? 100 : y.localPref, x.localPref < 0 ? 100 : x.localPref);
    if (c != 0) {
      return two(c, BestPathReason.LOCAL_PREF);
    }
    c = Boolean.compare(b.isLocal(), a.isLocal());
    if (c != 0) {
      return two(c, BestPathReason.LOCALLY_ORIGINATED);
    }
    c = Long.compare(x.asPathLength, y.asPathLength);
    if (c != 0) {
      return two(c, BestPathReason.AS_PATH_LENGTH);
    }
    c = Long.compare(x.origin, y.origin);
    if (c != 0) {
      return two(c, BestPathReason.ORIGIN);
    }
    if (options.alwaysCompareMed() || x.neighborAs == y.neighborAs) {
      c = Long.compare(med(a), med(b));
      if (c != 0) {
        return two(c, BestPathReason.MED);
      }
    }
    c =
        Boolean.compare(
            !b.isLocal() && !b.source().internal(), !a.isLocal() && !a.source().internal());
    if (c != 0) {
      return two(c, BestPathReason.EBGP_OVER_IBGP);
    }
    c = Long.compare(routerId(a), routerId(b));
    if (c != 0) {
      return two(c, BestPathReason.ROUTER_ID);
    }
    c = Long.compare(x.clusterListLength, y.clusterListLength);
    if (c != 0) {
      return two(c, BestPathReason.CLUSTER_LIST_LENGTH);
    }
    return two(Math.max(0, compareAddresses(a, b)), BestPathReason.NEIGHBOR_ADDRESS);
  }

  /** {@code c} below 0: the first path wins, above: the second. */
  private static int two(int c, BestPathReason r) {
    return r.ordinal() << 1 | (c > 0 ? 1 : 0);
  }

  private static long routerId(Path p) {
    return Integer.toUnsignedLong(
        p.attrs().originatorId != 0 ? p.attrs().originatorId : p.source().routerId());
  }

  /**
   * Paths equal through step (e): same neighbouring AS unless relaxed (lengths are equal already).
   */
  private static List<Path> multipathSet(List<Path> c, boolean relax) {
    if (relax) {
      return c;
    }
    long as = c.getFirst().attrs().neighborAs;
    List<Path> same = new ArrayList<>();
    for (Path p : c) {
      if (p.attrs().neighborAs == as) {
        same.add(p);
      }
    }
    return same.size() == c.size() ? c : List.of();
  }

  /**
   * (f) lowest router id (ORIGINATOR_ID when reflected, RFC 4456 §9), (g) shortest CLUSTER_LIST,
   * lowest peer address.
   */
  private static BestPathReason tieBreak(List<Path> c) {
    if (keepMin(c, BestPath::routerId)) {
      return BestPathReason.ROUTER_ID;
    }
    if (keepMin(c, p -> p.attrs().clusterListLength)) {
      return BestPathReason.CLUSTER_LIST_LENGTH;
    }
    c.sort((x, y) -> compareAddresses(x, y));
    return BestPathReason.NEIGHBOR_ADDRESS;
  }

  private static int compareAddresses(Path x, Path y) {
    if (x.source().address() == null || y.source().address() == null) {
      // our own paths (no address) first; two of them compare equal (a consistent order)
      return Boolean.compare(y.source().address() == null, x.source().address() == null);
    }
    byte[] a = x.source().address().getAddress();
    byte[] b = y.source().address().getAddress();
    return a.length != b.length
        ? Integer.compare(a.length, b.length)
        : java.util.Arrays.compareUnsigned(a, b);
  }

  private static boolean medStep(List<Path> c, boolean always) {
    List<Path> keep = new ArrayList<>();
    for (Path p : c) {
      boolean beaten = false;
      for (Path q : c) {
        if (q != p && (always || q.attrs().neighborAs == p.attrs().neighborAs) && med(q) < med(p)) {
          beaten = true;
          break;
        }
      }
      if (!beaten) {
        keep.add(p);
      }
    }
    c.retainAll(keep);
    return c.size() == 1;
  }

  private static long med(Path p) {
    return p.attrs().med < 0 ? 0 : p.attrs().med;
  }

  /** Keeps the paths with the highest value; true when one is left. */
  private static boolean keepMax(List<Path> c, ToLongFunction<Path> f) {
    long max = Long.MIN_VALUE;
    for (Path p : c) {
      max = Math.max(max, f.applyAsLong(p));
    }
    final long m = max;
    c.removeIf(p -> f.applyAsLong(p) != m);
    return c.size() == 1;
  }

  private static boolean keepMin(List<Path> c, ToLongFunction<Path> f) {
    long min = Long.MAX_VALUE;
    for (Path p : c) {
      min = Math.min(min, f.applyAsLong(p));
    }
    final long m = min;
    c.removeIf(p -> f.applyAsLong(p) != m);
    return c.size() == 1;
  }
}
