package dev.sart.bgp.bfd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** RFC 5880 §6.8: the state machine (§6.2, §6.8.6), timers (§6.8.3, §6.8.4, §6.8.7), Poll/Final. */
class BfdSessionTest {
  private static final BfdConfig FAST = BfdConfig.ofMillis(100, 100, 3);

  private static BfdPacket from(BfdState state, int my, int your, long tx, long rx) {
    return new BfdPacket(
        0, state, false, false, false, false, false, false, 3, my, your, tx, rx, 0);
  }

  private static BfdPacket poll(BfdPacket p) {
    return new BfdPacket(
        p.diag(),
        p.state(),
        true,
        false,
        false,
        false,
        false,
        false,
        p.detectMult(),
        p.myDiscriminator(),
        p.yourDiscriminator(),
        p.desiredMinTx(),
        p.requiredMinRx(),
        0);
  }

  private static BfdPacket fin(BfdPacket p) {
    return new BfdPacket(
        p.diag(),
        p.state(),
        false,
        true,
        false,
        false,
        false,
        false,
        p.detectMult(),
        p.myDiscriminator(),
        p.yourDiscriminator(),
        p.desiredMinTx(),
        p.requiredMinRx(),
        0);
  }

  /** Down → Init on the remote's Down, → Up on its Init (the three-way handshake, §6.2). */
  private static BfdSession up() {
    BfdSession s = new BfdSession(7, FAST);
    assertEquals(
        BfdState.INIT, s.receive(from(BfdState.DOWN, 9, 0, 1_000_000, 100_000)).change().to());
    assertEquals(
        BfdState.UP, s.receive(from(BfdState.INIT, 9, 7, 1_000_000, 100_000)).change().to());
    return s;
  }

  @Test
  void aNewSessionIsDownAndSendsSlowlyAtOneSecond() {
    BfdSession s = new BfdSession(7, FAST);
    assertEquals(BfdState.DOWN, s.state());
    BfdPacket p = s.packet(false);
    assertEquals(BfdState.DOWN, p.state());
    assertEquals(1_000_000, p.desiredMinTx()); // §6.8.3: at least 1 s while not Up
    assertEquals(100_000, p.requiredMinRx());
    assertEquals(0, p.yourDiscriminator());
    assertEquals(7, p.myDiscriminator());
    assertEquals(1_000_000, s.transmitInterval());
  }

  @Test
  void theRemotesDownTakesUsToInitAndItsInitToUp() {
    BfdSession s = up();
    assertEquals(BfdState.UP, s.state());
    assertEquals(9, s.remoteDiscriminator());
  }

  @Test
  void theRemotesUpTakesUsFromInitToUp() {
    BfdSession s = new BfdSession(7, FAST);
    s.receive(from(BfdState.DOWN, 9, 0, 1_000_000, 100_000));
    assertEquals(BfdState.UP, s.receive(from(BfdState.UP, 9, 7, 1_000_000, 100_000)).change().to());
  }

  @Test
  void comingUpStartsAPollSequenceForTheFastRateThatTheRemotesFinalEnds() {
    BfdSession s = up();
    BfdPacket p = s.packet(false);
    assertTrue(p.poll());
    assertEquals(100_000, p.desiredMinTx());
    // until the Final comes, every periodic packet carries P
    s.receive(from(BfdState.UP, 9, 7, 1_000_000, 100_000));
    assertTrue(s.packet(false).poll());
    s.receive(fin(from(BfdState.UP, 9, 7, 100_000, 100_000)));
    assertFalse(s.packet(false).poll());
    assertEquals(100_000, s.transmitInterval());
  }

  @Test
  void aPollIsAnsweredWithAFinalThatCarriesNoPoll() {
    BfdSession s = up();
    BfdSession.Received r = s.receive(poll(from(BfdState.UP, 9, 7, 100_000, 100_000)));
    assertTrue(r.sendFinal());
    BfdPacket answer = s.packet(true);
    assertTrue(answer.fin());
    assertFalse(answer.poll()); // §6.8.7, although our own Poll Sequence is still running
  }

  @Test
  void theTransmitIntervalIsTheGreaterOfOurDesiredAndTheRemotesRequired() {
    BfdSession s = up();
    s.receive(from(BfdState.UP, 9, 7, 100_000, 300_000));
    assertEquals(300_000, s.transmitInterval());
  }

  @Test
  void aRemoteThatRequiresNoPacketsGetsNone() {
    BfdSession s = up();
    s.receive(from(BfdState.UP, 9, 7, 100_000, 0));
    assertEquals(0, s.transmitInterval());
  }

  @Test
  void theDetectionTimeIsTheRemotesMultiplierTimesTheSlowerOfItsTxAndOurRx() {
    BfdSession s = up();
    s.receive(from(BfdState.UP, 9, 7, 100_000, 100_000));
    assertEquals(300_000, s.detectionTime());
    s.receive(from(BfdState.UP, 9, 7, 250_000, 100_000));
    assertEquals(750_000, s.detectionTime());
  }

  @Test
  void theDetectionTimeExpiringTakesAnUpSessionDownWithDiagnosticOne() {
    BfdSession s = up();
    BfdSession.Change c = s.detectionTimeExpired();
    assertEquals(new BfdSession.Change(BfdState.UP, BfdState.DOWN, 1, BfdState.DOWN), c);
    assertEquals(0, s.remoteDiscriminator());
    assertEquals(1, s.packet(false).diag());
    assertEquals(1_000_000, s.packet(false).desiredMinTx()); // slow again (§6.8.3)
  }

  @Test
  void theDetectionTimeExpiringInDownChangesNothing() {
    assertNull(new BfdSession(7, FAST).detectionTimeExpired());
  }

  @Test
  void theRemotesDownTakesAnUpSessionDownWithDiagnosticThree() {
    BfdSession s = up();
    BfdSession.Change c = s.receive(from(BfdState.DOWN, 9, 7, 1_000_000, 100_000)).change();
    assertEquals(new BfdSession.Change(BfdState.UP, BfdState.DOWN, 3, BfdState.DOWN), c);
    assertTrue(c.pathFailure());
  }

  @Test
  void theRemotesAdminDownTakesUsDownWithDiagnosticThreeButIsNoPathFailure() {
    BfdSession s = up();
    BfdSession.Change c = s.receive(from(BfdState.ADMIN_DOWN, 9, 7, 1_000_000, 100_000)).change();
    assertEquals(new BfdSession.Change(BfdState.UP, BfdState.DOWN, 3, BfdState.ADMIN_DOWN), c);
    assertFalse(c.pathFailure()); // RFC 5882 §3.2: the remote took it down on purpose
  }

  @Test
  void anUpPacketWithoutYourDiscriminatorIsDiscarded() {
    BfdSession s = new BfdSession(7, FAST);
    assertFalse(s.receive(from(BfdState.UP, 9, 0, 100_000, 100_000)).accepted());
    assertEquals(BfdState.DOWN, s.state());
  }

  @Test
  void aPacketForAnotherDiscriminatorIsDiscarded() {
    assertFalse(new BfdSession(7, FAST).receive(from(BfdState.DOWN, 9, 8, 1, 1)).accepted());
  }

  @Test
  void aPacketWithAuthenticationIsDiscardedSinceNoneIsImplemented() {
    BfdPacket p =
        new BfdPacket(0, BfdState.DOWN, false, false, false, true, false, false, 3, 9, 0, 1, 1, 0);
    assertFalse(new BfdSession(7, FAST).receive(p).accepted());
  }

  @Test
  void anAdminDownSessionDiscardsEverythingAndSaysSo() {
    BfdSession s = up();
    assertEquals(BfdState.ADMIN_DOWN, s.adminDown().to());
    assertFalse(s.receive(from(BfdState.UP, 9, 7, 100_000, 100_000)).accepted());
    assertEquals(BfdState.ADMIN_DOWN, s.packet(false).state());
    assertEquals(7, s.packet(false).diag());
  }

  @Test
  void jitterTakesZeroToAQuarterOffTheInterval() {
    BfdSession s = up();
    s.receive(fin(from(BfdState.UP, 9, 7, 100_000, 100_000)));
    assertEquals(100_000, s.jitteredTransmitInterval(0));
    assertEquals(75_000, s.jitteredTransmitInterval(0.999_999_9), 1);
  }

  @Test
  void withAMultiplierOfOneJitterTakesAtLeastATenthOff() {
    BfdSession s = new BfdSession(7, BfdConfig.ofMillis(100, 100, 1));
    assertEquals(900_000, s.jitteredTransmitInterval(0));
  }
}
