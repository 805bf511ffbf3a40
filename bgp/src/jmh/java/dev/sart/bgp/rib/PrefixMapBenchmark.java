package dev.sart.bgp.rib;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * An Adj-RIB-Out's pending changes at bgperf's scale (see README.md): the 500,000 prefixes of
 * scenario b changed while the peer's channel is not writable ({@code put}: every key new, the
 * map grows from empty), then changed again before the drain ({@code update}: every key found).
 * Each prefix is its own object with 80 bytes of other objects after it, as the decoder leaves
 * them, so the keys a probe passes are scattered over the heap.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-XX:+UseParallelGC", "-XX:+UseCompactObjectHeaders"})
public class PrefixMapBenchmark {
  static final int N = 500_000;

  @State(Scope.Thread)
  public static class Keys {
    List<Prefix> ps;
    Object[] others;
    PrefixMap empty;
    PrefixMap full;

    @Setup(Level.Trial)
    public void makeKeys() {
      ps = new ArrayList<>(N);
      others = new Object[N];
      for (int k = 0; k < N; k++) {
        ps.add(Prefix.v4(0xc6120000 + k, 32));
        others[k] = new long[8];
      }
    }

    @Setup(Level.Iteration)
    public void setUp() {
      empty = new PrefixMap();
      full = new PrefixMap();
      for (Prefix p : ps) {
        full.put(p, p);
      }
      System.gc();
    }
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public int put(Keys s) {
    PrefixMap m = s.empty;
    for (Prefix p : s.ps) {
      m.put(p, p);
    }
    return m.size();
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public int update(Keys s) {
    PrefixMap m = s.full;
    for (Prefix p : s.ps) {
      m.put(p, Boolean.TRUE);
    }
    return m.size();
  }
}
