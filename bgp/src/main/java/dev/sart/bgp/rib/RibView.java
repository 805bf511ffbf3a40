package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Read access for queries; valid only inside {@link Rib#query}, while every shard waits. */
public final class RibView {
  private final RibShard[] shards;

  RibView(RibShard[] shards) {
    this.shards = shards;
  }

  /** Every destination of every shard (only while the shards wait, see {@link Rib#query}). */
  private Iterable<Destination> destinations() {
    List<Iterable<Destination>> tables = new ArrayList<>(shards.length);
    for (RibShard s : shards) {
      tables.add(s.table.values());
    }
    return () ->
        tables.stream()
            .flatMap(t -> java.util.stream.StreamSupport.stream(t.spliterator(), false))
            .iterator();
  }

  /** Every destination of a family: its paths, the selection first. */
  public List<RouteView> routes(Family family) {
    List<RouteView> out = new ArrayList<>();
    for (Destination d : destinations()) {
      if (d.family().equals(family)) {
        out.add(view(d));
      }
    }
    out.sort((a, b) -> a.prefix().compareTo(b.prefix()));
    return out;
  }

  public RouteView route(Prefix p) {
    Destination d = shards[Rib.shardOf(p, shards.length)].table.get(p);
    return d == null ? null : view(d);
  }

  /** The Adj-RIB-In of one peer (post-policy): its paths for a family. */
  public List<RouteView> receivedFrom(RibPeer peer, Family family) {
    List<RouteView> out = new ArrayList<>();
    for (Destination d : destinations()) {
      if (!d.family().equals(family)) {
        continue;
      }
      List<Path> ps = d.paths().stream().filter(p -> p.source() == peer).toList();
      if (!ps.isEmpty()) {
        out.add(new RouteView(d.prefix(), ps, d.selectedPaths(), d.reason()));
      }
    }
    out.sort((a, b) -> a.prefix().compareTo(b.prefix()));
    return out;
  }

  public int size() {
    int n = 0;
    for (RibShard s : shards) {
      n += s.table.size();
    }
    return n;
  }

  /**
   * What is advertised to a peer (its Adj-RIB-Out, RFC 4271 §3.2) for a family, sorted: what the
   * Loc-RIB's selection exports to it (changes still being sent included).
   */
  public List<Map.Entry<Prefix, Attrs>> advertisedTo(RibPeer peer, Family family) {
    List<Map.Entry<Prefix, Attrs>> out = new ArrayList<>();
    for (RibShard s : shards) {
      if (!s.adjRibsIn.containsKey(peer)) {
        continue;
      }
      for (Destination d : s.table.values()) {
        Path best = d.best();
        if (best != null && d.family().equals(family)) {
          Prefix p = d.prefix();
          Attrs a = s.exportTo(p, best, peer);
          if (a != null) {
            out.add(Map.entry(p, a));
          }
        }
      }
    }
    out.sort(Map.Entry.comparingByKey());
    return out;
  }

  /**
   * The Adj-RIB-In of one peer as received, before the import policy (RFC 4271 §3.2), sorted; null
   * when the peer does not keep it (no soft reconfiguration inbound).
   */
  public List<Map.Entry<Prefix, Attrs>> receivedPrePolicy(RibPeer peer, Family family) {
    List<Map.Entry<Prefix, Attrs>> out = new ArrayList<>();
    for (RibShard s : shards) {
      AdjRibIn st = s.adjRibsIn.get(peer);
      if (st == null || st.received == null) {
        return null;
      }
      st.received.forEach(
          (k, a) -> {
            if (k.prefix().family().equals(family)) {
              out.add(Map.entry(k.prefix(), a));
            }
          });
    }
    out.sort(Map.Entry.comparingByKey());
    return out;
  }

  /** How many prefixes of a family the peer's import policy accepted (what max-prefix counts). */
  public long accepted(RibPeer peer, Family family) {
    AdjRibIn st = shards[0].adjRibsIn.get(peer);
    return st == null ? 0 : st.limit.accepted(family);
  }

  public long localAs() {
    return shards[0].localAs;
  }

  /**
   * What {@code peer} sends us for {@code p}, as received: the paths in the table and the ones kept
   * out of it (an AS_PATH holding our AS, RFC 4271 §9.1.2, or the import policy). A peer sends its
   * best path; one holding our AS shows that our route reached it.
   */
  public List<Attrs> sentBack(RibPeer peer, Prefix p) {
    RibShard s = shards[Rib.shardOf(p, shards.length)];
    List<Attrs> out = new ArrayList<>();
    Destination d = s.table.get(p);
    if (d != null) {
      for (Path x : d.paths()) {
        if (x.source() == peer) {
          out.add(x.attrs());
        }
      }
    }
    out.addAll(s.rejectedFrom(peer, p));
    return out;
  }

  /** Whether the best path of {@code p} is sent to {@code peer}, and if not, why. */
  public ExportVerdict exportVerdict(RibPeer peer, Prefix p) {
    return ExportVerdict.of(shards[Rib.shardOf(p, shards.length)], p, peer);
  }

  private RouteView view(Destination d) {
    return new RouteView(d.prefix(), List.copyOf(d.paths()), d.selectedPaths(), d.reason());
  }
}
