package dev.sart.bgp.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.Action.DropTcp;
import dev.sart.bgp.fsm.Action.ReleaseResources;
import dev.sart.bgp.fsm.Action.SendNotification;
import dev.sart.bgp.fsm.Action.StartTimer;
import dev.sart.bgp.fsm.Action.StopTimer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 4271 §8.2.2 as a table: one row per (state, event) paragraph of the RFC, each checking the
 * next state, the ConnectRetryCounter and the exact actions. The rows are grouped by the state they
 * start from, one test class per group; this class holds what the rows share.
 */
abstract class FsmTable {
  static final FsmConfig CFG = FsmConfig.defaults();
  static final FsmConfig DELAY = CFG.withDelayOpenTime(Duration.ofSeconds(2));
  static final FsmConfig PASSIVE = CFG.withPassive(true);
  static final Duration RETRY = CFG.connectRetryTime();
  static final Duration LARGE_HOLD = CFG.largeHoldTime();
  static final Duration IDLE_HOLD = CFG.idleHoldTime();
  static final Negotiated N90 =
      new Negotiated(Duration.ofSeconds(90), Duration.ofSeconds(30), false);
  static final Negotiated N0 = new Negotiated(Duration.ZERO, Duration.ZERO, false);
  static final ByteBuffer LEN = ByteBuffer.wrap(new byte[] {0x00, 0x05});
  // RFC 4486 §4: AFI 1 (IPv4), SAFI 1 (unicast), upper bound 100
  static final ByteBuffer MAX_PREFIX_DATA = ByteBuffer.wrap(new byte[] {0, 1, 1, 0, 0, 0, 100});

  // Sessions in each state, as the FSM leaves them after a normal run up to there.
  static Session idle() {
    return Session.initial(CFG);
  }

  static Session connect() {
    return new Session(State.CONNECT, 0, false, IDLE_HOLD, true, null);
  }

  static Session connectDelayed() {
    return new Session(State.CONNECT, 0, true, IDLE_HOLD, true, null);
  }

  static Session active() {
    return new Session(State.ACTIVE, 0, false, IDLE_HOLD, true, null);
  }

  static Session activeDelayed() {
    return new Session(State.ACTIVE, 0, true, IDLE_HOLD, true, null);
  }

  static Session openSent() {
    return new Session(State.OPEN_SENT, 2, false, IDLE_HOLD, true, null);
  }

  static Session openConfirm() {
    return new Session(State.OPEN_CONFIRM, 2, false, IDLE_HOLD, true, N90);
  }

  static Session established() {
    return new Session(State.ESTABLISHED, 2, false, IDLE_HOLD, true, N90);
  }

  static Session establishedNoHold() {
    return new Session(State.ESTABLISHED, 2, false, IDLE_HOLD, true, N0);
  }

  record Row(
      String name,
      FsmConfig config,
      Session from,
      Event event,
      State to,
      int counter,
      List<Action> actions) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Row row(String name, Session from, Event event, State to, int counter, Action... actions) {
    return new Row(name, CFG, from, event, to, counter, List.of(actions));
  }

  static Row row(
      String name,
      FsmConfig cfg,
      Session from,
      Event event,
      State to,
      int counter,
      Action... actions) {
    return new Row(name, cfg, from, event, to, counter, List.of(actions));
  }

  /** The teardown every error path shares, optionally preceded by a NOTIFICATION. */
  static Action[] teardown(
      SendNotification notification, boolean deleteRoutes, Duration restartAfter) {
    List<Action> a = new ArrayList<>();
    if (notification != null) {
      a.add(notification);
    }
    for (Timer t :
        List.of(
            Timer.CONNECT_RETRY,
            Timer.DELAY_OPEN,
            Timer.HOLD,
            Timer.KEEPALIVE,
            Timer.SEND_HOLD,
            Timer.STABLE)) {
      a.add(new StopTimer(t));
    }
    a.add(new ReleaseResources(deleteRoutes));
    a.add(new DropTcp());
    if (restartAfter != null) {
      a.add(new StartTimer(Timer.IDLE_HOLD, restartAfter));
    }
    return a.toArray(Action[]::new);
  }

  static SendNotification notif(int code, int subcode) {
    return SendNotification.of(code, subcode);
  }

  static void check(Row r) {
    Transition t = Fsm.step(r.config(), r.from(), r.event());
    assertEquals(r.to(), t.next().state(), "next state");
    assertEquals(r.counter(), t.next().connectRetryCounter(), "ConnectRetryCounter");
    assertEquals(r.actions(), t.actions(), "actions");
  }
}
