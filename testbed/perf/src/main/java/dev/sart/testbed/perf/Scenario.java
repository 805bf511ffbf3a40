package dev.sart.testbed.perf;

import java.util.List;
import java.util.Locale;

/**
 * One workload of the issue: how many generator peers, how many /32 each announces, and whether the
 * peers announce the same prefixes (best path) or their own, and whether churn follows.
 *
 * @param name "a", "b", "c" or "d"
 * @param peers generator peers (BGP sessions towards the target)
 * @param prefixesPerPeer /32 routes each generator peer announces
 * @param samePrefixes every peer announces the same prefixes with different AS_PATH, MED and
 *     communities, so the target's decision process picks between them (scenario b)
 * @param churn after convergence: withdraw 10 % of each peer's routes, announce them again, then
 *     withdraw everything (scenario d)
 * @param pathsPerPeer paths per prefix each peer sends with ADD-PATH (RFC 7911); above 1 the target
 *     takes them all and sends every path of a prefix to the monitor with ADD-PATH (scenario e); 1:
 *     no ADD-PATH
 */
public record Scenario(
    String name,
    int peers,
    int prefixesPerPeer,
    boolean samePrefixes,
    boolean churn,
    int pathsPerPeer) {

  /** Without ADD-PATH. */
  public Scenario(
      String name, int peers, int prefixesPerPeer, boolean samePrefixes, boolean churn) {
    this(name, peers, prefixesPerPeer, samePrefixes, churn, 1);
  }

  /** Generator peers use 198.51.100.10-129, the target 198.51.100.130-249: at most this many. */
  public static final int MAX_PEERS = 120;

  /** Routes are /32s from 10.0.0.0/8: at most this many distinct ones. */
  public static final int MAX_ROUTES = 1 << 24;

  public Scenario {
    if (peers < 1 || peers > MAX_PEERS) {
      throw new IllegalArgumentException(
          "scenario " + name + ": 1 to " + MAX_PEERS + " peers, not " + peers);
    }
    if (prefixesPerPeer < 1) {
      throw new IllegalArgumentException("scenario " + name + ": at least one prefix per peer");
    }
    if ((long) (samePrefixes ? 1 : peers) * prefixesPerPeer > MAX_ROUTES) {
      throw new IllegalArgumentException(
          "scenario " + name + ": more than " + MAX_ROUTES + " distinct /32s");
    }
  }

  /** The four scenarios of the issue at full scale: what {@code bin/bgperf} runs by default. */
  public static List<Scenario> defaults() {
    return List.of(
        new Scenario("a", 10, 100_000, false, false),
        new Scenario("b", 2, 500_000, true, false),
        new Scenario("c", 100, 1_000, false, false),
        new Scenario("d", 10, 100_000, false, true));
  }

  /**
   * The defaults and (e), issue 28: 2 peers each send 2 paths of the same 250,000 /32 with
   * ADD-PATH, and the target sends all 4 paths of each prefix to the monitor with ADD-PATH.
   */
  public static List<Scenario> all() {
    List<Scenario> all = new java.util.ArrayList<>(defaults());
    all.add(new Scenario("e", 2, 250_000, true, false, 2));
    return List.copyOf(all);
  }

  /** Paths per prefix go with ADD-PATH, to the target and from it to the monitor. */
  public boolean addPath() {
    return pathsPerPeer > 1;
  }

  /** What the monitor holds once converged: a path per prefix, or with ADD-PATH every path. */
  public long monitorRoutes() {
    return addPath() ? distinctPrefixes() * peers * pathsPerPeer : distinctPrefixes();
  }

  /** One of {@link #all()} by name. */
  public static Scenario named(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    return all().stream()
        .filter(s -> s.name.equals(n))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown scenario '" + name + "' (known: a, b, c, d, e)"));
  }

  /**
   * The same shape made smaller: prefixes per peer times {@code prefixScale}, peers times {@code
   * peerScale} (at least 1 prefix, at least 2 peers for scenario b so best path still chooses, at
   * least 1 peer otherwise).
   */
  public Scenario scaled(double prefixScale, double peerScale) {
    if (prefixScale <= 0 || peerScale <= 0) {
      throw new IllegalArgumentException("scale factors must be positive");
    }
    int p = Math.max(samePrefixes ? 2 : 1, (int) Math.round(peers * peerScale));
    int n = Math.max(samePrefixes ? 4 : 10, (int) Math.round(prefixesPerPeer * prefixScale));
    return new Scenario(name, Math.min(p, MAX_PEERS), n, samePrefixes, churn, pathsPerPeer);
  }

  /** Distinct prefixes the target ends up with (and re-advertises to the monitor). */
  public long distinctPrefixes() {
    return samePrefixes ? prefixesPerPeer : (long) peers * prefixesPerPeer;
  }

  /** Paths the target receives in all (its Adj-RIBs-In together). */
  public long paths() {
    return (long) peers * prefixesPerPeer * pathsPerPeer;
  }

  /** Routes of each peer withdrawn and re-announced during churn: 10 %. */
  public int churnPerPeer() {
    return Math.max(1, prefixesPerPeer / 10);
  }

  public String describe() {
    return "(%s) %d peers × %,d %s%s"
        .formatted(
            name,
            peers,
            prefixesPerPeer,
            addPath()
                ? "identical /32, " + pathsPerPeer + " paths each with ADD-PATH, all to the monitor"
                : samePrefixes ? "identical /32 (AS_PATH, MED, communities differ)" : "unique /32",
            churn ? ", then churn" : "");
  }
}
