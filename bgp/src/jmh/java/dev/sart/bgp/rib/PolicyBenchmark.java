package dev.sart.bgp.rib;

import dev.sart.bgp.policy.Action;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import java.net.InetAddress;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What policies cost on the RIB path (see README.md for the command and the figures): one UPDATE
 * of 1,000 IPv4 /24 from one peer through the RIB thread (import, decision, export to a second
 * peer, Adj-RIB-Out), without policies and with an import policy (a 10-entry prefix list that
 * rejects, then set LOCAL_PREF and add a community) and an export policy (set MED, prepend).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PolicyBenchmark {

  @Param({"none", "import+export"})
  public String policies;

  private Rib rib;
  private RibPeer from;
  private RibPeer to;
  private final List<Prefix> prefixes = new ArrayList<>();
  private Attrs a1;
  private Attrs a2;
  private boolean flip;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    rib = new Rib();
    rib.setLocalAs(65001);
    for (int i = 0; i < 1000; i++) {
      prefixes.add(Prefix.v4(0x0a000000 | i << 8, 24));
    }
    // two attribute sets, alternated, so that every UPDATE changes the best path and reaches the export
    a1 = Attrs.of(PathAttributes.of(Origin.IGP, AsPath.sequence(65002, 65010)), new MpNextHop.V4(Ip.parseV4("192.0.2.2")));
    a2 = Attrs.of(PathAttributes.of(Origin.IGP, AsPath.sequence(65002, 65011)), new MpNextHop.V4(Ip.parseV4("192.0.2.2")));
    Set<Family> v4 = Set.of(Family.IPV4_UNICAST);
    from = new RibPeer(1, InetAddress.getByName("192.0.2.2"), 65002, 2, false, new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
        null, v4, new AdjRibOut(() -> { }));
    to = new RibPeer(2, InetAddress.getByName("192.0.2.3"), 65003, 3, false, new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
        null, v4, new AdjRibOut(() -> { }));
    PeerPolicy in = PeerPolicy.NONE;
    PeerPolicy out = PeerPolicy.NONE;
    if (!policies.equals("none")) {
      List<String> bogons = List.of("deny 0.0.0.0/8 le 32", "deny 127.0.0.0/8 le 32", "deny 169.254.0.0/16 le 32",
          "deny 172.16.0.0/12 le 32", "deny 192.168.0.0/16 le 32", "deny 224.0.0.0/4 le 32", "deny 240.0.0.0/4 le 32",
          "deny 0.0.0.0/0 ge 25", "deny 100.64.0.0/10 le 32", "permit any");
      in = in.withImport(Policy.of("in", false,
          Statement.accept(Match.prefixes(PrefixList.of("bogons", bogons.toArray(String[]::new))),
              new Action.SetLocalPref(200), new Action.SetCommunities(List.of(Communities.community(65001, 1)), false))));
      out = out.withExport(Policy.of("out", true,
          Statement.accept(Match.ANY, new Action.SetMed(10), new Action.PrependAsPath(0, 2))));
    }
    rib.peerUp(from, in, null);
    rib.peerUp(to, out, null);
    rib.query(v -> null).join();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    rib.close();
  }

  @Benchmark
  public Object update1000() {
    flip = !flip;
    rib.update(from, List.of(), null, prefixes, null, flip ? a1 : a2);
    Object r = rib.query(v -> v.size()).join();
    to.out().drain(Integer.MAX_VALUE, Set.of(Family.IPV4_UNICAST)); // keep the Adj-RIB-Out from growing
    return r;
  }
}
