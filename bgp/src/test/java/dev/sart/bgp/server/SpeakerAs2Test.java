package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.ExaBgp;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RFC 6793 with an old speaker: ExaBGP with {@code asn4 disable} peers with us (AS 4200000001); FRR
 * (AS 4200000002) is our 4-octet peer on the other side. The old speaker sees AS_TRANS, and the
 * 4-octet AS numbers cross its session in AS4_PATH; what it sends us is merged back.
 */
class SpeakerAs2Test {
  private static final long OUR_AS = 4_200_000_001L;
  private static final long FRR_AS = 4_200_000_002L;
  private static final long OLD_AS = 65002;
  private static final long AS_TRANS = 23456;

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aTwoOctetPeerGetsAsTransAndAs4PathAndWhatItSendsIsMerged() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node oldNode = t.node("old");
    Node frrNode = t.node("frr");
    t.link(sart, oldNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(sart, frrNode).addresses("198.51.100.1/30", "198.51.100.2/30");

    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(OUR_AS);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    ExaBgp old =
        new ExaBgp(
            oldNode,
            RouterConfig.of(OLD_AS, "192.0.2.2").neighbor(Neighbor.of("192.0.2.1", AS_TRANS)));
    old.withNeighborOptions("192.0.2.1", "capability { asn4 disable; }").start();
    Router frr =
        RouterKind.FRR
            .create(
                frrNode,
                RouterConfig.of(FRR_AS, "198.51.100.2")
                    .neighbor(Neighbor.of("198.51.100.1", OUR_AS))
                    .originate("203.0.113.0/24"))
            .start();
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), OLD_AS)));
    server.addPeer(
        SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("198.51.100.2"), FRR_AS)));

    old.awaitEstablished("192.0.2.1");
    frr.awaitEstablished("198.51.100.1");
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);

    // the old speaker knows us as AS_TRANS
    assertTrue(
        old.events().contains("\"asn\": { \"local\": 65002, \"peer\": 23456 }"), old::events);
    // FRR's route reaches it as AS_PATH [23456 23456] + AS4_PATH [4200000001 4200000002]; ExaBGP
    // shows the merge (RFC 6793 §4.2.3). A 4-octet AS_PATH on this 2-octet session would read as
    // pairs of 2-octet numbers, and without AS4_PATH the merge would give [23456, 23456].
    Route atOld = old.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(OUR_AS, FRR_AS), atOld.asPath(), atOld::toString);

    // a route from the old speaker whose path crossed a 4-octet AS: ExaBGP, on its 2-octet session,
    // sends AS_PATH [65002 23456] plus AS4_PATH [65002 4200000099]
    old.send("announce route 192.0.2.128/25 next-hop self as-path [ 65002 4200000099 ]");
    Rib rib = server.rib();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> rib.query(v -> v.route(Prefix.parse("192.0.2.128/25"))).join() != null);
    var attrs =
        rib.query(v -> v.route(Prefix.parse("192.0.2.128/25")).paths().getFirst().attrs()).join();
    assertEquals(
        AsPath.sequence(OLD_AS, 4_200_000_099L),
        attrs.asPath(),
        () -> attrs.attributes() + "\n" + old.logTail());
    // and FRR, a 4-octet speaker, gets the whole path with ours in front
    Route atFrr = frr.awaitRoute("192.0.2.128/25");
    assertEquals(List.of(OUR_AS, OLD_AS, 4_200_000_099L), atFrr.asPath(), atFrr::toString);
  }
}
