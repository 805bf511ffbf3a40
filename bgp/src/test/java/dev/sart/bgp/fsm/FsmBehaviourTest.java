package dev.sart.bgp.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whole runs through the FSM: what a session does over several events. */
class FsmBehaviourTest {
  static final FsmConfig CFG =
      FsmConfig.defaults().withIdleHoldTime(Duration.ofSeconds(1), Duration.ofSeconds(5));
  static final Negotiated N90 =
      new Negotiated(Duration.ofSeconds(90), Duration.ofSeconds(30), false);

  private Session run(Session s, Event... events) {
    for (Event e : events) {
      s = Fsm.step(CFG, s, e).next();
    }
    return s;
  }

  private Session established() {
    return run(
        Session.initial(CFG),
        new Event.ManualStart(),
        new Event.TcpCrAcked(),
        new Event.BgpOpen(N90),
        new Event.KeepAliveMsg());
  }

  @Test
  void aSessionStoppedForMaxPrefixWithoutRestartStaysIdleUntilStartedAgain() {
    Session s =
        Fsm.step(
                CFG,
                established(),
                new Event.AutomaticStop(1, java.nio.ByteBuffer.allocate(0), false, null))
            .next();
    assertEquals(State.IDLE, s.state());
    assertFalse(s.automaticRestart());
    // an IdleHoldTimer left over from before does not restart it; an operator's start does
    assertEquals(State.IDLE, Fsm.step(CFG, s, new Event.IdleHoldTimerExpires()).next().state());
    assertEquals(State.CONNECT, Fsm.step(CFG, s, new Event.ManualStart()).next().state());
  }

  @Test
  void theMaxPrefixRestartTimerDoesNotChangeTheBackOffOfLaterErrors() {
    Session s =
        Fsm.step(
                CFG,
                established(),
                new Event.AutomaticStop(
                    1, java.nio.ByteBuffer.allocate(0), true, Duration.ofMinutes(10)))
            .next();
    assertEquals(Duration.ofSeconds(1), s.idleHoldTime());
    assertEquals(State.CONNECT, Fsm.step(CFG, s, new Event.IdleHoldTimerExpires()).next().state());
  }

  @Test
  void aSessionWalksFromIdleToEstablishedOnTheHappyPath() {
    Session s = established();
    assertEquals(State.ESTABLISHED, s.state());
    assertEquals(N90, s.negotiated());
    assertEquals(0, s.connectRetryCounter());
  }

  @Test
  void repeatedErrorsDoubleTheIdleHoldTimeUpToTheMaximum() {
    Session s = established();
    List<Duration> waits = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Transition t = Fsm.step(CFG, s, new Event.HoldTimerExpires());
      waits.add(
          t.actions().stream()
              .filter(a -> a instanceof Action.StartTimer st && st.timer() == Timer.IDLE_HOLD)
              .map(a -> ((Action.StartTimer) a).duration())
              .findFirst()
              .orElseThrow());
      s =
          run(
              t.next(),
              new Event.IdleHoldTimerExpires(),
              new Event.TcpCrAcked(),
              new Event.BgpOpen(N90),
              new Event.KeepAliveMsg());
    }
    assertEquals(
        List.of(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5)),
        waits);
  }

  @Test
  void aSessionThatStaysUpForgetsItsBackOff() {
    Session s = established();
    s = Fsm.step(CFG, s, new Event.HoldTimerExpires()).next();
    assertEquals(Duration.ofSeconds(2), s.idleHoldTime());
    s =
        run(
            s,
            new Event.IdleHoldTimerExpires(),
            new Event.TcpCrAcked(),
            new Event.BgpOpen(N90),
            new Event.KeepAliveMsg(),
            new Event.StableTimerExpires());
    assertEquals(Duration.ofSeconds(1), s.idleHoldTime());
  }

  @Test
  void withoutDampingTheIdleHoldTimeStaysPut() {
    FsmConfig noDamp = CFG.withDampPeerOscillations(false);
    Session s = Session.initial(noDamp);
    for (Event e :
        List.of(new Event.ManualStart(), new Event.TcpCrAcked(), new Event.HoldTimerExpires())) {
      s = Fsm.step(noDamp, s, e).next();
    }
    assertEquals(Duration.ofSeconds(1), s.idleHoldTime());
  }

  @Test
  void aManualStopNeverRestartsBySelf() {
    Transition t = Fsm.step(CFG, established(), new Event.ManualStop());
    assertFalse(t.next().automaticRestart());
    assertTrue(t.actions().stream().noneMatch(a -> a instanceof Action.StartTimer));
    assertNull(t.next().negotiated());
  }

  @Test
  void aPeerThatOnlyConnectsMeetsUsInActiveAndOurRetriesBackOffMeanwhile() {
    // our connects are refused (the peer does not listen): each failure waits longer, in Active
    Session s = run(Session.initial(CFG), new Event.ManualStart());
    List<Duration> waits = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Transition t = Fsm.step(CFG, s, new Event.TcpConnectionFails());
      assertEquals(State.ACTIVE, t.next().state());
      assertTrue(t.next().acceptsConnection(), "listening for the peer's connection");
      waits.add(connectRetryStarted(t));
      s = Fsm.step(CFG, t.next(), new Event.ConnectRetryTimerExpires()).next();
      assertEquals(State.CONNECT, s.state());
    }
    Duration r = CFG.connectRetryTime();
    assertEquals(List.of(r, r.multipliedBy(2), r.multipliedBy(4), r.multipliedBy(8)), waits);
    // the peer's connection arrives while we wait: OPEN, and the back-off is forgotten
    s = run(s, new Event.TcpConnectionFails(), new Event.TcpConnectionConfirmed());
    assertEquals(State.OPEN_SENT, s.state());
    assertEquals(0, s.connectFailures());
    assertEquals(0, s.connectRetryCounter());
  }

  @Test
  void aPeerThatRefusesUsWhileIdleIsAcceptedWhenItConnectsAndItsRefusalsBackOff() {
    // our connection reaches the peer, which answers Cease / Connection Rejected (it is in Idle)
    Session s = run(Session.initial(CFG), new Event.ManualStart());
    List<Duration> waits = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      s = run(s, new Event.TcpCrAcked());
      assertEquals(State.OPEN_SENT, s.state());
      Transition t = Fsm.step(CFG, s, new Event.ConnectionRejected());
      assertEquals(State.ACTIVE, t.next().state(), "not Idle, which would refuse the peer");
      assertTrue(t.next().acceptsConnection(), "listening for the peer's connection");
      waits.add(connectRetryStarted(t));
      s = run(t.next(), new Event.ConnectRetryTimerExpires());
    }
    Duration r = CFG.connectRetryTime();
    assertEquals(List.of(r, r.multipliedBy(2), r.multipliedBy(4)), waits, "backed off");
    assertEquals(3, s.connectRetryCounter(), "each refusal counted");
    // our next connection is answered with the peer's OPEN: the back-off ends
    s = run(s, new Event.TcpCrAcked());
    assertEquals(3, s.connectFailures(), "a connection alone is no answer");
    s = run(s, new Event.BgpOpen(N90));
    assertEquals(State.OPEN_CONFIRM, s.state());
    assertEquals(0, s.connectFailures());
    // and had the peer, out of Idle, connected to us while we waited: accepted
    Session waiting =
        run(
            Session.initial(CFG),
            new Event.ManualStart(),
            new Event.TcpCrAcked(),
            new Event.ConnectionRejected());
    assertEquals(State.OPEN_SENT, run(waiting, new Event.TcpConnectionConfirmed()).state());
  }

  /** The ConnectRetryTimer {@code t} starts. */
  private static Duration connectRetryStarted(Transition t) {
    return t.actions().stream()
        .filter(a -> a instanceof Action.StartTimer st && st.timer() == Timer.CONNECT_RETRY)
        .map(a -> ((Action.StartTimer) a).duration())
        .findFirst()
        .orElseThrow();
  }

  @Test
  void onlyConnectAndActiveAcceptAnIncomingConnection() {
    assertFalse(Session.initial(CFG).acceptsConnection());
    assertTrue(run(Session.initial(CFG), new Event.ManualStart()).acceptsConnection());
    assertTrue(
        run(Session.initial(CFG), new Event.ManualStartWithPassiveTcpEstablishment())
            .acceptsConnection());
    assertFalse(established().acceptsConnection());
  }

  @Test
  void holdTimesOfOneOrTwoSecondsAreRejected() {
    // RFC 4271 §4.2: "MUST reject HoldTime values of one or two seconds"
    assertThrows(
        IllegalArgumentException.class,
        () -> new Negotiated(Duration.ofSeconds(2), Duration.ZERO, false));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Negotiated(Duration.ofSeconds(1), Duration.ZERO, false));
    new Negotiated(Duration.ZERO, Duration.ZERO, false);
    new Negotiated(Duration.ofSeconds(3), Duration.ofSeconds(1), false);
  }

  @Test
  void everyEventKeepsItsRfcNumber() {
    assertEquals(1, new Event.ManualStart().number());
    assertEquals(13, new Event.IdleHoldTimerExpires().number());
    assertEquals(19, new Event.BgpOpen(N90).number());
    assertEquals(28, new Event.UpdateMsgErr(3, 1, java.nio.ByteBuffer.allocate(0)).number());
    assertEquals(29, new Event.SendHoldTimerExpires().number());
  }
}
