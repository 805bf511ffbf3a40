package dev.sart.bgp.server;

import dev.sart.bgp.bfd.BfdConfig;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Our speaker (192.0.2.1, AS 65001) and FRR with bfdd (192.0.2.2, AS 65002) on one link, both with
 * single-hop BFD at 100 ms × 3 and the default hold time (90 s), for {@link BfdInteropTest} and
 * {@link BfdDetectionBenchmark}. {@link #cut} drops BFD and BGP in FRR's namespace with nftables
 * (both directions); {@link #restore} lets them through again.
 */
final class BfdPair implements AutoCloseable {
  static final InetAddress SART = address("192.0.2.1");
  static final InetAddress FRR = address("192.0.2.2");

  final BgpServer server;
  final Frr frr;
  final Node frrNode;
  final Peer peer;

  BfdPair(Testbed testbed) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    frrNode = t.node("frr");
    t.link(sart, frrNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    frr =
        new Frr(
                frrNode,
                RouterConfig.of(65002, "192.0.2.2").neighbor(Neighbor.of("192.0.2.1", 65001)))
            .withBfd(100, 100, 3);
    frr.start();
    peer =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(FRR, 65002))
                .withBfd(BfdConfig.ofMillis(100, 100, 3)));
  }

  /** Drops UDP 3784 (BFD) and TCP 179 (BGP) in and out of FRR's namespace. */
  void cut() throws IOException {
    cut(frrNode);
  }

  /** Drops UDP 3784 (BFD) and TCP 179 (BGP) in and out of this node's namespace. */
  static void cut(Node node) throws IOException {
    Path rules = node.dir().resolve("cut.nft");
    Files.writeString(
        rules,
        """
        table inet cut {
          chain in {
            type filter hook input priority 0;
            udp dport 3784 drop
            tcp dport 179 drop
            tcp sport 179 drop
          }
          chain out {
            type filter hook output priority 0;
            udp dport 3784 drop
            tcp dport 179 drop
            tcp sport 179 drop
          }
        }
        """);
    node.exec("nft", "-f", rules.toString());
  }

  void restore() {
    frrNode.exec("nft", "delete", "table", "inet", "cut");
  }

  @Override
  public void close() {
    server.close();
  }

  private static InetAddress address(String text) {
    try {
      return InetAddress.getByName(text);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
