package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two sart speakers as each other's neighbour (two nodes of a cluster, or a node and a route
 * reflector of ours): sessions that come up between them whatever state each one is in.
 */
class SartPairTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private final List<BgpServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(BgpServer::close);
  }

  private BgpServer speaker(Node node, long asn, String address) {
    BgpServer s = new BgpServer(179, 1, NamespaceThreads.factory(node, "bgp-io"));
    servers.add(s);
    s.setLocalAs(asn);
    s.setRouterId(Ip.parseV4(address));
    s.start();
    return s;
  }

  /**
   * One speaker is in Idle after an error, its IdleHoldTimer running, when the other (just fixed)
   * connects: the connection is refused with Cease / Connection Rejected (RFC 4486 §4). The refused
   * side must still take the first speaker's connection when its idle hold ends. It went to Idle
   * (damped) on that NOTIFICATION, as RFC 4271 §8.2.2 has OpenSent do for any NOTIFICATION, and the
   * two then refused each other in turn, each connecting while the other was Idle, with an ever
   * longer idle hold, and the session did not come up (two nodes of the end-to-end suite did, when
   * unconfigured addresses got that Cease too; bgp/docs/sessions.md).
   */
  @Test
  void aConnectionRefusedByAnIdlePeerLeavesUsListeningForIt() throws Exception {
    Topology t = testbed.topology();
    Node a = t.node("a");
    Node b = t.node("b");
    t.link(a, b).addresses("192.0.2.1/30", "192.0.2.2/30");
    BgpServer sa = speaker(a, 65001, "192.0.2.1");
    BgpServer sb = speaker(b, 65002, "192.0.2.2");
    InetAddress addrA = InetAddress.getByName("192.0.2.1");
    InetAddress addrB = InetAddress.getByName("192.0.2.2");
    PeerConfig toA = SpeakerInteropTest.quick(PeerConfig.of(addrA, 65001));
    // b expects a wrong AS: whoever connects, b sends OPEN Message Error / Bad Peer AS and a goes
    // Idle with its IdleHoldTimer running, damped (1 s, 2 s, 4 s, ...; a 6/5 of b's, b being Idle
    // in turn, sends a to Active instead): after three NOTIFICATIONs a's idle hold is 2 s or more,
    // time enough for what follows to find a still in Idle
    sb.addPeer(SpeakerInteropTest.quick(PeerConfig.of(addrA, 65099)));
    Peer ab = sa.addPeer(SpeakerInteropTest.quick(PeerConfig.of(addrB, 65002)));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ab.status().state() == State.IDLE
                    && ab.status().received()[Iana.MessageType.NOTIFICATION] >= 3
                    && ab.status().lastError() != null
                    && ab.status().lastError().contains("Bad Peer AS"));

    // fixed: b's new session connects at once, to a that is still Idle
    sb.replacePeer(toA, PeerPolicy.NONE).join();
    Peer ba = sb.peer(addrA);
    await()
        .atMost(Duration.ofSeconds(4))
        .until(
            () ->
                ba.status().lastError() != null
                    && ba.status().lastError().contains("Connection Rejected"));
    // a's idle hold ends and a connects; b takes it
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                ab.status().state() == State.ESTABLISHED
                    && ba.status().state() == State.ESTABLISHED);
    assertEquals(0, ab.status().flaps(), "a's session came up once and stayed");
  }
}
