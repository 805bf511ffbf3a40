package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.ReceiveErrors;
import dev.sart.bgp.rib.AdjRibOut;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Ipv4Prefixes;
import dev.sart.bgp.wire.Ipv6Prefixes;
import dev.sart.bgp.wire.Message;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MpReachNlri;
import dev.sart.bgp.wire.MpUnreachNlri;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.NextHop;
import dev.sart.bgp.wire.NotificationException;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.bgp.wire.SessionOptions;
import dev.sart.bgp.wire.Update;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs the speaker's route path in this process, on a RIB of its own, before any peer connects:
 * UPDATEs are encoded and decoded as on the wire, go through the RIB (best path between two peers),
 * and an Adj-RIB-Out is drained into UPDATEs again; then part of the routes is withdrawn and
 * announced again, and everything withdrawn; the cycle is repeated over a small table until the
 * asked number of routes has gone through. Nothing leaves the process and nothing stays: the RIB,
 * its thread and its routes are dropped at the end.
 *
 * <p>Why: the JIT compiles what it has seen. Without this, a cold sartd compiles the route path
 * while the first table arrives (in bgperf b the compiler threads took about as much CPU as the
 * speaker's own), and the first withdrawal after a table runs code compiled without withdrawals,
 * which the JVM deoptimises and compiles again (bgperf d). After a warm-up, the first table and the
 * first failure after a start are handled by code compiled for both. The cost is start-up time:
 * measured figures in {@code testbed/perf/README.md}, "Warm-up at start".
 *
 * <p>The routes are /32s of 198.18.0.0/15 (RFC 2544's benchmarking range) and /128s of
 * 2001:db8::/32; the peers are documentation AS numbers (RFC 5398). None of it is visible outside.
 */
public final class Warmup {
  private static final long LOCAL_AS = 64496;
  private static final long PEER_AS_A = 64497;
  private static final long PEER_AS_B = 64498;
  private static final long OUT_AS = 64499;

  /** 198.18.0.0/15 holds 131,072 addresses. */
  public static final int MAX_ROUTES = 1 << 17;

  /**
   * Prefixes per UPDATE: 500 IPv4 /32s take 2,500 octets, 200 IPv6 /128s 3,400 (of 4,096, RFC 4271
   * §4).
   */
  private static final int PER_UPDATE = 500;

  private static final int PER_UPDATE_V6 = 200;

  /** Prefixes queued in the RIB before the warm-up waits for it (as read back-pressure would). */
  private static final int RIB_BATCH = 20_000;

  /**
   * Routes per cycle: more routes mean more cycles over a table of this size. Against 16,384, in
   * bgperf b and d (two runs each): sartd's idle RSS 9 MB lower, start-up CPU a little lower, the
   * clocked figures the same (testbed/perf/LOG.md).
   */
  private static final int TABLE = 4_096;

  /**
   * What a warm-up did: the routes it ran through (whole cycles: {@code n} rounded up to a multiple
   * of the table), the prefixes announced and withdrawn to the Adj-RIB-Out, and how long it took.
   */
  public record Report(int routes, long announced, long withdrawn, long millis) {}

  private final BgpCodec codec = new BgpCodec(SessionOptions.FOUR_OCTET_AS);
  private final Rib rib;

  /** Routes per cycle. */
  private final int table;

  private RibPeer a;
  private RibPeer b;
  private RibPeer out;
  private int queued;
  private long announced;
  private long withdrawn;

  private Warmup(Rib rib, int table) throws java.net.UnknownHostException {
    this.rib = rib;
    this.table = table;
    Set<Family> families = Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST);
    a =
        new RibPeer(
            1,
            InetAddress.getByName("192.0.2.1"),
            PEER_AS_A,
            0xc0000201,
            false,
            v4("192.0.2.254"),
            v6(0xfe),
            families,
            new AdjRibOut(() -> {}));
    b =
        new RibPeer(
            2,
            InetAddress.getByName("192.0.2.2"),
            PEER_AS_B,
            0xc0000202,
            false,
            v4("192.0.2.254"),
            v6(0xfe),
            families,
            new AdjRibOut(() -> {}));
    out =
        new RibPeer(
            3,
            InetAddress.getByName("192.0.2.3"),
            OUT_AS,
            0xc0000203,
            false,
            v4("192.0.2.254"),
            v6(0xfe),
            families,
            new AdjRibOut(() -> {}));
  }

  /**
   * Runs a warm-up over {@code routes} prefixes (at most {@link #MAX_ROUTES}; 0 or less: nothing).
   * What it queued for the JIT is compiled in the background while the speaker starts.
   */
  public static Report run(int routes) {
    long start = System.nanoTime();
    int n = Math.min(routes, MAX_ROUTES);
    if (n <= 0) {
      return new Report(0, 0, 0, 0);
    }
    // the table is kept small and the cycle repeated: the JIT counts calls, not distinct routes,
    // and a small table touches fewer heap pages (65,536 routes in one table left sartd's idle RSS
    // 30 MB higher than no warm-up, four cycles over 16,384 routes 19 MB; 131,072 routes over
    // 16,384 left it 30 MB higher, over 4,096 17 MB)
    int table = Math.min(n, TABLE);
    try (Rib rib = new Rib()) {
      Warmup w = new Warmup(rib, table);
      int done = 0;
      while (done < n) {
        w.cycle();
        done += table;
      }
      // what the warm-up allocated is garbage now: collected here, so the speaker starts with an
      // old generation as empty as without a warm-up (the pages it touched stay resident)
      System.gc();
      return new Report(
          done, w.announced, w.withdrawn, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private void cycle() {
    rib.setLocalAs(LOCAL_AS);
    a = peer(a);
    b = peer(b);
    out = peer(out);
    rib.peerUp(a);
    rib.peerUp(b);
    rib.peerUp(out);
    // a's table, then b's: b wins the even UPDATEs (shorter AS_PATH) and a the odd ones, so the
    // best path changes on half the table and stays on the other half
    announce(a, 0, table, 0);
    drain();
    announce(b, 0, table, 1);
    drain();
    // churn as in bgperf d: a tenth withdrawn, announced again, then everything withdrawn; the
    // tenth from the second UPDATE on, where a's paths are the best ones
    int tenth = Math.max(1, table / 10);
    int from = table >= PER_UPDATE + tenth ? PER_UPDATE : 0;
    withdraw(a, from, from + tenth);
    drain();
    announce(a, from, from + tenth, 0);
    drain();
    withdraw(b, 0, table);
    drain();
    withdraw(a, 0, table);
    drain();
    rib.peerDown(a);
    rib.peerDown(b);
    rib.peerDown(out);
    wait(rib);
  }

  /** Announces prefixes [from, to) from {@code peer} in UPDATEs as a peer would send them. */
  private void announce(RibPeer peer, int from, int to, int variant) {
    for (int i = from; i < to; i += PER_UPDATE) {
      int end = Math.min(to, i + PER_UPDATE);
      int group = i / PER_UPDATE;
      PathAttributes attrs = attributes(peer.asn(), group, variant);
      if (isV6(group)) {
        for (int j = i; j < end; j += PER_UPDATE_V6) {
          receive(
              peer,
              new Update(
                  Ipv4Prefixes.EMPTY,
                  attrs.with(
                      new MpReachNlri(
                          Family.IPV6_UNICAST,
                          new MpNextHop.V6(0x20010db800000000L, peer.id()),
                          v6Routes(j, Math.min(end, j + PER_UPDATE_V6)))),
                  Ipv4Prefixes.EMPTY));
        }
      } else {
        receive(
            peer,
            new Update(
                Ipv4Prefixes.EMPTY,
                attrs.with(new NextHop(0xc0000200 | peer.id())),
                v4Routes(i, end)));
      }
    }
  }

  private void withdraw(RibPeer peer, int from, int to) {
    for (int i = from; i < to; i += PER_UPDATE) {
      int end = Math.min(to, i + PER_UPDATE);
      if (isV6(i / PER_UPDATE)) {
        for (int j = i; j < end; j += PER_UPDATE_V6) {
          receive(
              peer,
              new Update(
                  Ipv4Prefixes.EMPTY,
                  PathAttributes.of(
                      new MpUnreachNlri(
                          Family.IPV6_UNICAST, v6Routes(j, Math.min(end, j + PER_UPDATE_V6)))),
                  Ipv4Prefixes.EMPTY));
        }
      } else {
        receive(peer, new Update(v4Routes(i, end), PathAttributes.EMPTY, Ipv4Prefixes.EMPTY));
      }
    }
  }

  /**
   * Path attributes of the {@code group}-th UPDATE: peer a's paths are two ASes long with MED 100,
   * peer b's one AS long on even groups (b wins on AS_PATH) and three long with MED 50 on odd
   * groups (a wins), each with a community naming the peer.
   */
  private static PathAttributes attributes(long peerAs, int group, int variant) {
    AsPath path =
        variant == 0
            ? AsPath.sequence(peerAs, 64510 + group % 2)
            : group % 2 == 0 ? AsPath.sequence(peerAs) : AsPath.sequence(peerAs, 64510, 64511);
    return PathAttributes.of(
        Origin.IGP,
        path,
        new MultiExitDisc(variant == 0 ? 100 : 50),
        Communities.of(Communities.community((int) peerAs, group % 4)));
  }

  /**
   * As {@link Connection}: encoded, decoded as the frame decoder does, checked (RFC 7606), handed
   * to the RIB.
   */
  private void receive(RibPeer from, Update u) {
    byte[] wire = codec.encode(u);
    Message m;
    try {
      m = codec.decode(wire, 0, wire.length);
    } catch (NotificationException e) {
      throw new IllegalStateException("warm-up UPDATE did not decode: " + e.getMessage(), e);
    }
    Update decoded = (Update) m;
    ReceiveErrors.Outcome v = ReceiveErrors.of(decoded);
    if (!(v.event() instanceof dev.sart.bgp.fsm.Event.UpdateMsg)) {
      throw new IllegalStateException("warm-up UPDATE rejected: " + v.event());
    }
    ReceivedUpdate.apply(decoded, v.treatAsWithdraw(), from, codec.options(), rib);
    queued += PER_UPDATE; // at most
    if (queued >= RIB_BATCH) {
      wait(rib);
      queued = 0;
    }
  }

  /** As {@link Peer#drain}: the Adj-RIB-Out taken in chunks, packed into UPDATEs and encoded. */
  private void drain() {
    wait(rib);
    List<Family> families = List.copyOf(out.families());
    AdjRibOut o = out.out();
    while (true) {
      AdjRibOut.Batch batch = o.drain(Peer.DRAIN_CHUNK, out.families());
      if (batch.isEmpty()) {
        break;
      }
      withdrawn += batch.withdraw().size();
      for (List<Prefix> ps : batch.announce().values()) {
        announced += ps.size();
      }
      for (Update u : UpdatePacker.pack(batch, codec, families)) {
        codec.encode(u);
      }
    }
  }

  /** Waits until every shard has run what was queued before. */
  private static void wait(Rib rib) {
    rib.query(v -> null).join();
  }

  /** A new session of the same peer (each cycle brings the peers up again). */
  private RibPeer peer(RibPeer p) {
    return new RibPeer(
        p.id() + 3,
        p.address(),
        p.asn(),
        p.routerId(),
        p.internal(),
        p.nextHopSelfV4(),
        p.nextHopSelfV6(),
        p.families(),
        new AdjRibOut(() -> {}));
  }

  /** Every eighth UPDATE carries IPv6 routes. */
  private static boolean isV6(int group) {
    return group % 8 == 7;
  }

  /** Routes [from, to) as IPv4 /32s: 198.18.0.0 + k. */
  private static Ipv4Prefixes v4Routes(int from, int to) {
    Ipv4Prefixes.Builder nlri = Ipv4Prefixes.builder();
    for (int k = from; k < to; k++) {
      nlri.add(0xc6120000 + k, 32);
    }
    return nlri.build();
  }

  /** Routes [from, to) as IPv6 /128s: 2001:db8:: + k. */
  private static Ipv6Prefixes v6Routes(int from, int to) {
    Ipv6Prefixes.Builder nlri = Ipv6Prefixes.builder();
    for (int k = from; k < to; k++) {
      nlri.add(0x20010db800000000L, k, 128);
    }
    return nlri.build();
  }

  private static MpNextHop v4(String address) {
    return new MpNextHop.V4(Ip.parseV4(address));
  }

  private static MpNextHop v6(long low) {
    return new MpNextHop.V6(0x20010db800000000L, low);
  }
}
