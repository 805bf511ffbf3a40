package dev.sart.bgp.rib;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MultiExitDisc;
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
 * The RIB alone, per prefix (see README.md for the command and the figures): a prefix that
 * already has {@code paths − 1} paths gets one more ({@code insert}), loses one ({@code withdraw}),
 * and the decision process over {@code paths} candidates by itself ({@code bestPath}).
 *
 * <p>{@code insert} and {@code withdraw} go through {@link Rib#update} as the peers call it, in
 * batches of 500 prefixes (about what a 4096-octet UPDATE of /32s holds), into a RIB with one
 * downstream eBGP peer whose Adj-RIB-Out collects the changes (never drained here: it measures
 * the RIB threads' work, not the peer's). The time includes handing the batches to the RIB
 * (split by shard) and waiting until every shard has processed them.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-XX:+UseSerialGC"})
public class RibBenchmark {
  static final int PREFIXES = 20_000;
  static final int BATCH = 500;
  static final int DOWNSTREAM_ID = 1000;


  static RibPeer peer(int id, boolean withOut) {
    try {
      InetAddress a = InetAddress.getByAddress(new byte[] {(byte) 198, 51, 100, (byte) (10 + id % 200)});
      int v4 = 0xc6336400 | (10 + id % 200);
      return new RibPeer(id, a, 65100 + id, v4, false, new MpNextHop.V4(0xc6336401), null,
          Set.of(Family.IPV4_UNICAST), withOut ? new AdjRibOut(() -> { }) : null);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Peer i's attributes: AS_PATH of length 1 + i % 3, MED i, a community: each peer's differ. */
  static Attrs attrs(int i) {
    long[] path = new long[1 + i % 3];
    for (int k = 0; k < path.length; k++) {
      path[k] = 65100 + i;
    }
    return Attrs.of(PathAttributes.of(Origin.IGP, AsPath.sequence(path), new MultiExitDisc(i),
        Communities.of(Communities.community(65100, i))), new MpNextHop.V4(0xc6336400 | (10 + i)));
  }

  /** The peers, their attributes and the prefixes, made once per trial. */
  @State(Scope.Thread)
  public static class Fixture {
    @Param({"1", "10"})
    public int paths;

    /** The RIB's shards (threads): 1, or one per core of this machine. */
    @Param({"1", "2"})
    public int shards;

    List<RibPeer> peers;
    List<Attrs> attrs;
    List<List<Prefix>> batches;
    List<Path> candidates;

    @Setup(Level.Trial)
    public void setUp() {
      peers = new ArrayList<>();
      attrs = new ArrayList<>();
      for (int i = 0; i < paths; i++) {
        peers.add(peer(i + 1, true));
        attrs.add(attrs(i));
      }
      batches = new ArrayList<>();
      for (int start = 0; start < PREFIXES; start += BATCH) {
        List<Prefix> b = new ArrayList<>(BATCH);
        for (int k = start; k < Math.min(PREFIXES, start + BATCH); k++) {
          b.add(Prefix.v4(0x0a000000 + k, 32));
        }
        batches.add(b);
      }
      candidates = new ArrayList<>();
      for (int i = 0; i < paths; i++) {
        candidates.add(new Path(peers.get(i), 0, attrs.get(i), 0));
      }
    }

    /** A fresh RIB with one downstream peer, holding the paths of the first {@code count} peers. */
    Rib fill(int count) {
      Rib rib = new Rib(shards);
      rib.setLocalAs(65000);
      for (RibPeer p : peers) {
        rib.peerUp(p);
      }
      rib.peerUp(peer(DOWNSTREAM_ID, true));
      for (int i = 0; i < count; i++) {
        announce(rib, i);
      }
      rib.query(RibView::size).join();
      return rib;
    }

    void announce(Rib rib, int peer) {
      for (List<Prefix> b : batches) {
        rib.update(peers.get(peer), List.of(), null, b, null, attrs.get(peer));
      }
    }
  }

  /** A RIB whose prefixes have {@code paths − 1} paths. */
  @State(Scope.Thread)
  public static class InsertState {
    Rib rib;

    @Setup(Level.Invocation)
    public void setUp(Fixture f) {
      rib = f.fill(f.paths - 1);
    }

    @TearDown(Level.Invocation)
    public void tearDown() {
      rib.close();
    }
  }

  /** A RIB whose prefixes have {@code paths} paths. */
  @State(Scope.Thread)
  public static class WithdrawState {
    Rib rib;

    @Setup(Level.Invocation)
    public void setUp(Fixture f) {
      rib = f.fill(f.paths);
    }

    @TearDown(Level.Invocation)
    public void tearDown() {
      rib.close();
    }
  }

  /** The last peer's path arrives for every prefix: stored, decided, handed to the downstream Adj-RIB-Out. */
  @Benchmark
  @OperationsPerInvocation(PREFIXES)
  public int insert(Fixture f, InsertState s) {
    f.announce(s.rib, f.paths - 1);
    return s.rib.query(RibView::size).join();
  }

  /** The last peer withdraws its path for every prefix. */
  @Benchmark
  @OperationsPerInvocation(PREFIXES)
  public int withdraw(Fixture f, WithdrawState s) {
    RibPeer p = f.peers.get(f.paths - 1);
    for (List<Prefix> b : f.batches) {
      s.rib.update(p, b, null, List.of(), null, null);
    }
    return s.rib.query(RibView::size).join();
  }

  /** The decision process over {@code paths} candidates (RFC 4271 §9.1.2.2), alone. */
  @Benchmark
  public BestPath.Selection bestPath(Fixture f) {
    return BestPath.select(f.candidates, BestPath.Options.DEFAULT);
  }
}
