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
 * The Loc-RIB's index at bgperf's scale (see README.md for the command and the figures): a million
 * /32s in ten blocks of 100,000, as the generators of scenario a send them. Per prefix:
 * {@code load} creates every destination in an empty table (the first peer's table: every lookup
 * misses, and the table grows from empty), {@code hit} looks every one up again (a second peer's
 * path to the same prefix, or a withdrawal), {@code withdraw} removes every one.
 *
 * <p>Each destination is allocated with 80 bytes of other objects after it, as in a speaker where a
 * route's path and attributes are allocated between one destination and the next, so neighbours
 * in the table are not neighbours in memory.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-XX:+UseParallelGC", "-XX:+UseCompactObjectHeaders"})
public class DestinationTableBenchmark {
  static final int BLOCKS = 10;
  static final int PER_BLOCK = 100_000;
  static final int N = BLOCKS * PER_BLOCK;

  /** The prefixes in the order the generators send them: block by block (198.18.0.0/15 onwards). */
  static List<Prefix> inOrder() {
    List<Prefix> ps = new ArrayList<>(N);
    for (int b = 0; b < BLOCKS; b++) {
      for (int k = 0; k < PER_BLOCK; k++) {
        ps.add(Prefix.v4(0xc6120000 + b * 0x20000 + k, 32));
      }
    }
    return ps;
  }

  /** The prefixes (made once per trial), a table, and the objects allocated beside its destinations. */
  @State(Scope.Thread)
  public abstract static class Table {
    List<Prefix> ps;
    DestinationTable table;
    Object[] others;

    @Setup(Level.Trial)
    public void makePrefixes() {
      ps = inOrder();
    }
  }

  /** An empty table, new for each iteration. */
  public static class Empty extends Table {
    @Setup(Level.Iteration)
    public void setUp() {
      table = new DestinationTable();
      others = new Object[N];
      System.gc();
    }
  }

  /** A table holding every prefix, new for each iteration. */
  public static class Full extends Table {
    @Setup(Level.Iteration)
    public void setUp() {
      table = new DestinationTable();
      others = new Object[N];
      for (int i = 0; i < N; i++) {
        table.getOrCreate(ps.get(i));
        others[i] = new long[8];
      }
      System.gc();
    }
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public int load(Empty s) {
    List<Prefix> ps = s.ps;
    DestinationTable t = s.table;
    for (int i = 0; i < N; i++) {
      t.getOrCreate(ps.get(i));
      s.others[i] = new long[8];
    }
    return t.size();
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public int hit(Full s) {
    List<Prefix> ps = s.ps;
    DestinationTable t = s.table;
    int found = 0;
    for (int i = 0; i < N; i++) {
      if (t.get(ps.get(i)) != null) {
        found++;
      }
    }
    if (found != N) {
      throw new IllegalStateException("found " + found + " of " + N);
    }
    return found;
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public int withdraw(Full s) {
    List<Prefix> ps = s.ps;
    DestinationTable t = s.table;
    for (int i = 0; i < N; i++) {
      t.remove(ps.get(i));
    }
    if (t.size() != 0) {
      throw new IllegalStateException(t.size() + " left");
    }
    return t.size();
  }
}
