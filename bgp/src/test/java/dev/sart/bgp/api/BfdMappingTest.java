package dev.sart.bgp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.bgp.bfd.BfdConfig;
import dev.sart.bgp.bfd.BfdState;
import dev.sart.bgp.bfd.BfdStatus;
import dev.sart.proto.v1.Bfd;
import dev.sart.proto.v1.Peer;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@code Peer.bfd} of the gRPC API: AddPeer's timers in, GetNeighbor's session out (no socket: a
 * BFD session would send from the test's own namespace).
 */
class BfdMappingTest {
  @Test
  void aPeerWithoutTheMessageHasNoBfd() {
    assertNull(ProtoMapping.bfdConfig(Peer.newBuilder().setAddress("192.0.2.2").build()));
  }

  @Test
  void theTimersAreMillisecondsAndZeroMeansTheDefault() {
    Peer p =
        Peer.newBuilder()
            .setBfd(Bfd.newBuilder().setMinTx(100).setMinRx(50).setMultiplier(5))
            .build();
    assertEquals(BfdConfig.ofMillis(100, 50, 5), ProtoMapping.bfdConfig(p));
    assertEquals(
        BfdConfig.DEFAULT,
        ProtoMapping.bfdConfig(Peer.newBuilder().setBfd(Bfd.getDefaultInstance()).build()));
  }

  @Test
  void theSessionIsReportedWithItsNegotiatedTimers() {
    BfdStatus st =
        new BfdStatus(BfdState.UP, BfdState.UP, 0, 7, 9, 100_000, 300_000, 2, Instant.EPOCH);
    Bfd b = ProtoMapping.bfd(BfdConfig.ofMillis(100, 100, 3), st);
    assertEquals("up", b.getState());
    assertEquals("up", b.getRemoteState());
    assertEquals(100, b.getMinTx());
    assertEquals(3, b.getMultiplier());
    assertEquals(100, b.getTransmitIntervalMs());
    assertEquals(300, b.getDetectionTimeMs());
    assertEquals(2, b.getDowns());
  }

  @Test
  void beforeTheSessionRunsOnlyTheTimersAreReported() {
    Bfd b = ProtoMapping.bfd(BfdConfig.DEFAULT, null);
    assertEquals("", b.getState());
    assertEquals(300, b.getMinRx());
  }
}
