package dev.sart.bgp.rib;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * bgperf's scenario d in the RIB alone (see testbed/perf/LOG.md, "churn (scenario d)"): 10 eBGP peers of
 * AS 65100 with {@code prefixes} unique /32 each and a monitor (AS 65999), every route exported to
 * the 10 other peers. One invocation withdraws 10 % of every peer's routes ({@code withdraw}) or
 * announces them again ({@code reannounce}), in batches of 814 prefixes (a full 4096-octet UPDATE
 * of /32s), waits for the RIB thread, then drains every peer's Adj-RIB-Out as the event loop would
 * (without encoding). Unlike {@link RibBenchmark} the Loc-RIB is a million entries, far larger than
 * the caches, as in bgperf. The time is per prefix withdrawn or announced.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 10, batchSize = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-XX:+UseParallelGC", "-XX:+UseCompactObjectHeaders"})
public class ChurnBenchmark {
  static final int PEERS = 10;
  static final int UPDATE = 814;
  static final int OPS = 10_000 * PEERS;

  /** A million routes in the RIB, all drained, and the 10 % that churns. */
  @State(Scope.Benchmark)
  public static class Table {
    @Param({"100000"})
    public int prefixes;

    Rib rib;
    final List<RibPeer> peers = new ArrayList<>();
    final List<Attrs> attrs = new ArrayList<>();
    /** Per peer, its churned 10 % in UPDATE-sized batches. */
    final List<List<List<Prefix>>> churn = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      rib = new Rib();
      rib.setLocalAs(65000);
      for (int i = 0; i < PEERS; i++) {
        RibPeer p = peer(i + 1, 65100, i);
        peers.add(p);
        attrs.add(Attrs.of(PathAttributes.of(Origin.IGP, AsPath.sequence(65100)),
            new MpNextHop.V4(0xc6336400 | (10 + i))));
      }
      peers.add(peer(PEERS + 1, 65999, 200));
      peers.forEach(rib::peerUp);
      for (int i = 0; i < PEERS; i++) {
        List<List<Prefix>> mine = new ArrayList<>();
        for (int start = 0; start < prefixes; start += UPDATE) {
          List<Prefix> b = new ArrayList<>(UPDATE);
          for (int k = start; k < Math.min(prefixes, start + UPDATE); k++) {
            b.add(Prefix.v4(0x0a000000 + i * prefixes + k, 32));
          }
          rib.update(peers.get(i), List.of(), null, b, null, attrs.get(i));
          if (start < prefixes / 10) {
            mine.add(start + UPDATE <= prefixes / 10 ? b : b.subList(0, prefixes / 10 - start));
          }
        }
        churn.add(mine);
      }
      rib.query(RibView::size).join();
      drainAll();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      rib.close();
    }

    static RibPeer peer(int id, long as, int host) throws UnknownHostException {
      InetAddress a = InetAddress.getByAddress(new byte[] {(byte) 198, 51, 100, (byte) (10 + host)});
      return new RibPeer(id, a, as, 0xc6336400 | (10 + host), false, new MpNextHop.V4(0xc6336400 | (130 + host)),
          null, Set.of(Family.IPV4_UNICAST), new AdjRibOut(() -> { }));
    }

    void withdraw() {
      for (int i = 0; i < PEERS; i++) {
        for (List<Prefix> b : churn.get(i)) {
          rib.update(peers.get(i), b, null, List.of(), null, null);
        }
      }
      rib.query(RibView::size).join();
    }

    void announce() {
      for (int i = 0; i < PEERS; i++) {
        for (List<Prefix> b : churn.get(i)) {
          rib.update(peers.get(i), List.of(), null, b, null, attrs.get(i));
        }
      }
      rib.query(RibView::size).join();
    }

    /** What the peers' event loops do: take every pending change (not encoded); returns the prefixes taken. */
    int drainAll() {
      int n = 0;
      for (RibPeer p : peers) {
        while (p.out().hasPending()) {
          AdjRibOut.Batch b = p.out().drain(2048, p.families());
          n += b.withdraw().size();
          for (List<Prefix> ps : b.announce().values()) {
            n += ps.size();
          }
          if (b.isEmpty()) {
            break;
          }
        }
      }
      return n;
    }
  }

  /** Before each withdrawal the churned 10 % is in the table (announced again and drained). */
  @State(Scope.Thread)
  public static class Announced {
    Table t;

    @Setup(Level.Invocation)
    public void setUp(Table table) {
      t = table;
    }

    @TearDown(Level.Invocation)
    public void tearDown() {
      t.announce();
      t.drainAll();
    }
  }

  /** Before each re-announcement the churned 10 % has been withdrawn (and drained). */
  @State(Scope.Thread)
  public static class Withdrawn {
    @Setup(Level.Invocation)
    public void setUp(Table t) {
      t.withdraw();
      t.drainAll();
    }
  }

  @Benchmark
  @OperationsPerInvocation(OPS)
  public int withdraw(Table t, Announced a) {
    t.withdraw();
    return t.drainAll();
  }

  @Benchmark
  @OperationsPerInvocation(OPS)
  public int reannounce(Table t, Withdrawn w) {
    t.announce();
    return t.drainAll();
  }
}
