package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.bgp.bfd.BfdState;
import dev.sart.bgp.bfd.BfdStatus;
import dev.sart.bgp.fsm.State;
import dev.sart.testbed.SessionState;
import dev.sart.testbed.Testbed;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Single-hop BFD (RFC 5880, RFC 5881) against FRR's bfdd, FRR's CLI as the oracle: the sessions
 * come up with 100 ms × 3, and a cut path (nftables drops BFD and BGP) takes the BGP session down
 * on both sides long before the hold timer (90 s), through BFD (RFC 5882); the sessions come back
 * when the path does.
 */
class BfdInteropTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BfdPair pair;

  @AfterEach
  void stop() {
    if (pair != null) {
      pair.close();
    }
  }

  private JsonNode frrSession() {
    for (JsonNode p : pair.frr.bfdPeers()) {
      if (p.path("peer").asText().equals("192.0.2.1")) {
        return p;
      }
    }
    return null;
  }

  private BfdState ours() {
    BfdStatus s = pair.server.bfdStatus(BfdPair.FRR);
    return s == null ? null : s.state();
  }

  private void awaitUp() {
    await("BFD up on both sides")
        .atMost(Duration.ofSeconds(60))
        .until(() -> ours() == BfdState.UP && "up".equals(pair.frr.bfdState(BfdPair.SART)));
  }

  @Test
  void bothSidesComeUpAndAgreeOnOneHundredMillisecondsTimesThree() throws Exception {
    pair = new BfdPair(testbed);
    pair.frr.awaitEstablished("192.0.2.1");
    awaitUp();
    // once our Poll Sequence is over, FRR sees the fast timers we ask for (RFC 5880 §6.8.3)
    await("FRR sees our timers")
        .atMost(Duration.ofSeconds(10))
        .until(() -> frrSession().path("remote-transmit-interval").asInt() == 100);
    JsonNode frr = frrSession();
    assertEquals(100, frr.path("remote-receive-interval").asInt(), frr::toString);
    assertEquals(3, frr.path("remote-detect-multiplier").asInt(), frr::toString);
    assertEquals(3, frr.path("detect-multiplier").asInt(), frr::toString);
    await("our negotiated timers")
        .atMost(Duration.ofSeconds(10))
        .until(() -> pair.server.bfdStatus(BfdPair.FRR).detectionTimeMicros() == 300_000);
    BfdStatus ours = pair.server.bfdStatus(BfdPair.FRR);
    assertEquals(100_000, ours.transmitIntervalMicros());
    assertEquals(BfdState.UP, ours.remoteState());
    assertEquals(
        Integer.toUnsignedLong(ours.localDiscriminator()),
        frr.path("remote-id").asLong(),
        frr::toString);
  }

  @Test
  void aCutPathTakesBgpDownOnBothSidesThroughBfdAndItsRepairBringsThemBack() throws Exception {
    pair = new BfdPair(testbed);
    pair.frr.awaitEstablished("192.0.2.1");
    awaitUp();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> pair.peer.status().state() == State.ESTABLISHED);

    long cut = System.nanoTime();
    pair.cut();
    // the hold time is 90 s: only BFD can take the sessions down this soon
    await("our BGP session down")
        .atMost(Duration.ofSeconds(10))
        .until(() -> pair.peer.status().state() != State.ESTABLISHED);
    double ourSeconds = (System.nanoTime() - cut) / 1e9;
    await("FRR's BGP session down")
        .atMost(Duration.ofSeconds(10))
        .until(() -> pair.frr.sessionState(BfdPair.SART) != SessionState.ESTABLISHED);
    assertTrue(ourSeconds < 10, () -> "down after " + ourSeconds + " s");
    assertEquals(BfdState.DOWN, ours());
    assertEquals(1, pair.server.bfdStatus(BfdPair.FRR).localDiag()); // detection time expired
    assertEquals("down", pair.frr.bfdState(BfdPair.SART));
    // FRR's bgpd sent Cease / BFD Down (RFC 9384: 6/10) on its own BFD session's going down
    String frrNeighbor = pair.frr.vtysh("show bgp neighbors 192.0.2.1 json");
    assertTrue(frrNeighbor.contains("\"lastErrorCodeSubcode\":\"060A\""), frrNeighbor);

    pair.restore();
    awaitUp();
    pair.frr.awaitEstablished("192.0.2.1");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> pair.peer.status().state() == State.ESTABLISHED);
  }
}
