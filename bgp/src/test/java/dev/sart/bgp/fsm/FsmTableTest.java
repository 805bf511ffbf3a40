package dev.sart.bgp.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.Action.ConnectTcp;
import dev.sart.bgp.fsm.Action.DropTcp;
import dev.sart.bgp.fsm.Action.InitializeResources;
import dev.sart.bgp.fsm.Action.ProcessUpdate;
import dev.sart.bgp.fsm.Action.ReleaseResources;
import dev.sart.bgp.fsm.Action.SendKeepalive;
import dev.sart.bgp.fsm.Action.SendNotification;
import dev.sart.bgp.fsm.Action.SendOpen;
import dev.sart.bgp.fsm.Action.SessionEstablished;
import dev.sart.bgp.fsm.Action.StartTimer;
import dev.sart.bgp.fsm.Action.StopTimer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 4271 §8.2.2 as a table: one row per (state, event) paragraph of the RFC, each checking the
 * next state, the ConnectRetryCounter and the exact actions.
 */
class FsmTableTest {
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

  static Stream<Arguments> rows() {
    return Stream.of(
            // ---- Idle
            row(
                "Idle: ManualStart connects, starts the ConnectRetryTimer and moves to Connect",
                idle(),
                new Event.ManualStart(),
                State.CONNECT,
                0,
                new StopTimer(Timer.IDLE_HOLD),
                new InitializeResources(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY),
                new ConnectTcp()),
            row(
                "Idle: AutomaticStart behaves as ManualStart",
                idle(),
                new Event.AutomaticStart(),
                State.CONNECT,
                0,
                new StopTimer(Timer.IDLE_HOLD),
                new InitializeResources(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY),
                new ConnectTcp()),
            row(
                "Idle: ManualStart of a passive peer listens in Active without connecting",
                PASSIVE,
                idle(),
                new Event.ManualStart(),
                State.ACTIVE,
                0,
                new StopTimer(Timer.IDLE_HOLD),
                new InitializeResources()),
            row(
                "Idle: ManualStart_with_PassiveTcpEstablishment moves to Active",
                idle(),
                new Event.ManualStartWithPassiveTcpEstablishment(),
                State.ACTIVE,
                0,
                new StopTimer(Timer.IDLE_HOLD),
                new InitializeResources()),
            row(
                "Idle: AutomaticStart_with_PassiveTcpEstablishment moves to Active",
                idle(),
                new Event.AutomaticStartWithPassiveTcpEstablishment(),
                State.ACTIVE,
                0,
                new StopTimer(Timer.IDLE_HOLD),
                new InitializeResources()),
            row(
                "Idle: AutomaticStart_with_DampPeerOscillations waits for the IdleHoldTimer",
                idle(),
                new Event.AutomaticStartWithDampPeerOscillations(),
                State.IDLE,
                0,
                new StartTimer(Timer.IDLE_HOLD, IDLE_HOLD)),
            row(
                "Idle: AutomaticStart_with_DampPeerOscillations_and_PassiveTcpEstablishment waits too",
                idle(),
                new Event.AutomaticStartWithDampPeerOscillationsAndPassiveTcpEstablishment(),
                State.IDLE,
                0,
                new StartTimer(Timer.IDLE_HOLD, IDLE_HOLD)),
            row(
                "Idle: IdleHoldTimer_Expires restarts a session that may restart",
                idle().withAutomaticRestart(true).withCounter(3),
                new Event.IdleHoldTimerExpires(),
                State.CONNECT,
                0,
                new StopTimer(Timer.IDLE_HOLD),
                new InitializeResources(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY),
                new ConnectTcp()),
            row(
                "Idle: IdleHoldTimer_Expires after a ManualStop does nothing",
                idle(),
                new Event.IdleHoldTimerExpires(),
                State.IDLE,
                0),
            row(
                "Idle: ManualStop cancels a pending automatic restart",
                idle().withAutomaticRestart(true),
                new Event.ManualStop(),
                State.IDLE,
                0,
                new StopTimer(Timer.IDLE_HOLD)),
            row(
                "Idle: AutomaticStop is ignored",
                idle(),
                new Event.AutomaticStop(1),
                State.IDLE,
                0),
            row(
                "Idle: an incoming connection is refused",
                idle(),
                new Event.TcpConnectionConfirmed(),
                State.IDLE,
                0,
                new DropTcp()),
            row(
                "Idle: a KEEPALIVE changes nothing",
                idle(),
                new Event.KeepAliveMsg(),
                State.IDLE,
                0),
            row(
                "Idle: a NOTIFICATION changes nothing",
                idle(),
                new Event.NotifMsg(),
                State.IDLE,
                0),

            // ---- Connect
            row(
                "Connect: start events are ignored",
                connect(),
                new Event.ManualStart(),
                State.CONNECT,
                0),
            row(
                "Connect: ManualStop drops the connection and resets the counter",
                connect().withCounter(4),
                new Event.ManualStop(),
                State.IDLE,
                0,
                teardown(null, false, null)),
            row(
                "Connect: ConnectRetryTimer_Expires retries the connection",
                connect(),
                new Event.ConnectRetryTimerExpires(),
                State.CONNECT,
                0,
                new DropTcp(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY),
                new ConnectTcp()),
            row(
                "Connect: Tcp_CR_Acked sends OPEN with a large hold timer",
                connect(),
                new Event.TcpCrAcked(),
                State.OPEN_SENT,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new InitializeResources(),
                new SendOpen(),
                new StartTimer(Timer.HOLD, LARGE_HOLD)),
            row(
                "Connect: TcpConnectionConfirmed sends OPEN",
                connect(),
                new Event.TcpConnectionConfirmed(),
                State.OPEN_SENT,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new InitializeResources(),
                new SendOpen(),
                new StartTimer(Timer.HOLD, LARGE_HOLD)),
            row(
                "Connect: with DelayOpen a connection starts the DelayOpenTimer instead",
                DELAY,
                connect(),
                new Event.TcpConnectionConfirmed(),
                State.CONNECT,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new StartTimer(Timer.DELAY_OPEN, Duration.ofSeconds(2))),
            row(
                "Connect: DelayOpenTimer_Expires sends OPEN",
                DELAY,
                connectDelayed(),
                new Event.DelayOpenTimerExpires(),
                State.OPEN_SENT,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new StopTimer(Timer.DELAY_OPEN),
                new InitializeResources(),
                new SendOpen(),
                new StartTimer(Timer.HOLD, LARGE_HOLD)),
            row(
                "Connect: an OPEN while the DelayOpenTimer runs is answered with OPEN and KEEPALIVE",
                DELAY,
                connectDelayed(),
                new Event.BgpOpen(N90),
                State.OPEN_CONFIRM,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new InitializeResources(),
                new StopTimer(Timer.DELAY_OPEN),
                new SendOpen(),
                new SendKeepalive(),
                new StartTimer(Timer.KEEPALIVE, Duration.ofSeconds(30)),
                new StartTimer(Timer.HOLD, Duration.ofSeconds(90))),
            row(
                "Connect: TcpConnectionFails while delaying OPEN falls back to Active",
                DELAY,
                connectDelayed(),
                new Event.TcpConnectionFails(),
                State.ACTIVE,
                0,
                new StartTimer(Timer.CONNECT_RETRY, RETRY),
                new StopTimer(Timer.DELAY_OPEN)),
            row(
                "Connect: TcpConnectionFails waits in Active, listening, without counting an error",
                connect(),
                new Event.TcpConnectionFails(),
                State.ACTIVE,
                0,
                new StartTimer(Timer.CONNECT_RETRY, RETRY)),
            row(
                "Connect: the third connect failing in a row waits four ConnectRetryTimes",
                connect().withConnectFailures(2),
                new Event.TcpConnectionFails(),
                State.ACTIVE,
                0,
                new StartTimer(Timer.CONNECT_RETRY, RETRY.multipliedBy(4))),
            row(
                "Connect: the back-off of the ConnectRetryTimer stops at its maximum",
                connect().withConnectFailures(30),
                new Event.TcpConnectionFails(),
                State.ACTIVE,
                0,
                new StartTimer(Timer.CONNECT_RETRY, CFG.maxConnectRetryTime())),
            row(
                "Connect: without DampPeerOscillations the ConnectRetryTimer does not back off",
                CFG.withDampPeerOscillations(false),
                connect().withConnectFailures(2),
                new Event.TcpConnectionFails(),
                State.ACTIVE,
                0,
                new StartTimer(Timer.CONNECT_RETRY, RETRY)),
            row(
                "Connect: an attempt unanswered for the ConnectRetryTime counts as failed",
                connect().withConnectFailures(1),
                new Event.ConnectRetryTimerExpires(),
                State.CONNECT,
                0,
                new DropTcp(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY.multipliedBy(2)),
                new ConnectTcp()),
            row(
                "Connect: a bad header is dropped without NOTIFICATION by default",
                connect(),
                new Event.BgpHeaderErr(1, 2, LEN),
                State.IDLE,
                1,
                teardown(null, false, IDLE_HOLD)),
            row(
                "Connect: with SendNOTIFICATIONwithoutOPEN a bad OPEN gets its NOTIFICATION",
                CFG.withSendNotificationWithoutOpen(true),
                connect(),
                new Event.BgpOpenMsgErr(2, 2, LEN),
                State.IDLE,
                1,
                teardown(new SendNotification(2, 2, LEN), false, IDLE_HOLD)),
            row(
                "Connect: NotifMsgVerErr while delaying OPEN does not count an error",
                DELAY,
                connectDelayed(),
                new Event.NotifMsgVerErr(),
                State.IDLE,
                0,
                teardown(null, false, IDLE_HOLD)),
            row(
                "Connect: NotifMsgVerErr otherwise counts an error",
                connect(),
                new Event.NotifMsgVerErr(),
                State.IDLE,
                1,
                teardown(null, false, IDLE_HOLD)),
            row(
                "Connect: an unexpected KEEPALIVE goes to Idle",
                connect(),
                new Event.KeepAliveMsg(),
                State.IDLE,
                1,
                teardown(null, false, IDLE_HOLD)),
            row(
                "Connect: HoldTimer_Expires goes to Idle",
                connect(),
                new Event.HoldTimerExpires(),
                State.IDLE,
                1,
                teardown(null, false, IDLE_HOLD)),
            row(
                "Connect: Tcp_CR_Invalid is rejected and nothing changes",
                connect(),
                new Event.TcpCrInvalid(),
                State.CONNECT,
                0),

            // ---- Active
            row(
                "Active: start events are ignored",
                active(),
                new Event.AutomaticStart(),
                State.ACTIVE,
                0),
            row(
                "Active: ManualStop goes to Idle and resets the counter",
                active().withCounter(3),
                new Event.ManualStop(),
                State.IDLE,
                0,
                teardown(null, false, null)),
            row(
                "Active: ManualStop while delaying OPEN sends Cease with SendNOTIFICATIONwithoutOPEN",
                DELAY.withSendNotificationWithoutOpen(true),
                activeDelayed(),
                new Event.ManualStop(),
                State.IDLE,
                0,
                teardown(notif(6, 2), false, null)),
            row(
                "Active: ConnectRetryTimer_Expires connects and moves to Connect",
                active(),
                new Event.ConnectRetryTimerExpires(),
                State.CONNECT,
                0,
                new StartTimer(Timer.CONNECT_RETRY, RETRY),
                new ConnectTcp()),
            row(
                "Active: after failed connects the attempt keeps the backed-off ConnectRetryTimer",
                active().withConnectFailures(3),
                new Event.ConnectRetryTimerExpires(),
                State.CONNECT,
                0,
                new StartTimer(Timer.CONNECT_RETRY, RETRY.multipliedBy(4)),
                new ConnectTcp()),
            row(
                "Active: a passive peer never connects when the ConnectRetryTimer fires",
                PASSIVE,
                active(),
                new Event.ConnectRetryTimerExpires(),
                State.ACTIVE,
                0),
            row(
                "Active: an accepted connection sends OPEN",
                active(),
                new Event.TcpConnectionConfirmed(),
                State.OPEN_SENT,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new InitializeResources(),
                new SendOpen(),
                new StartTimer(Timer.HOLD, LARGE_HOLD)),
            row(
                "Active: with DelayOpen an accepted connection waits",
                DELAY,
                active(),
                new Event.TcpConnectionConfirmed(),
                State.ACTIVE,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new StartTimer(Timer.DELAY_OPEN, Duration.ofSeconds(2))),
            row(
                "Active: DelayOpenTimer_Expires sends OPEN",
                DELAY,
                activeDelayed(),
                new Event.DelayOpenTimerExpires(),
                State.OPEN_SENT,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new StopTimer(Timer.DELAY_OPEN),
                new InitializeResources(),
                new SendOpen(),
                new StartTimer(Timer.HOLD, LARGE_HOLD)),
            row(
                "Active: an OPEN while delaying ours with hold time 0 starts no timers",
                DELAY,
                activeDelayed(),
                new Event.BgpOpen(N0),
                State.OPEN_CONFIRM,
                0,
                new StopTimer(Timer.CONNECT_RETRY),
                new InitializeResources(),
                new StopTimer(Timer.DELAY_OPEN),
                new SendOpen(),
                new SendKeepalive(),
                new StopTimer(Timer.HOLD),
                new StopTimer(Timer.KEEPALIVE)),
            row(
                "Active: TcpConnectionFails counts an error and damps",
                active(),
                new Event.TcpConnectionFails(),
                State.IDLE,
                1,
                teardown(null, false, IDLE_HOLD)),
            row(
                "Active: an OPEN without DelayOpen is unexpected",
                active(),
                new Event.BgpOpen(N90),
                State.IDLE,
                1,
                teardown(null, false, IDLE_HOLD)),

            // ---- OpenSent
            row(
                "OpenSent: start events are ignored",
                openSent(),
                new Event.ManualStart(),
                State.OPEN_SENT,
                2),
            row(
                "OpenSent: ManualStop sends Cease/Administrative Shutdown and resets the counter",
                openSent(),
                new Event.ManualStop(),
                State.IDLE,
                0,
                teardown(notif(6, 2), false, null)),
            row(
                "OpenSent: AutomaticStop sends Cease with its subcode",
                openSent(),
                new Event.AutomaticStop(1),
                State.IDLE,
                3,
                teardown(notif(6, 1), false, IDLE_HOLD)),
            row(
                "OpenSent: HoldTimer_Expires sends Hold Timer Expired",
                openSent(),
                new Event.HoldTimerExpires(),
                State.IDLE,
                3,
                teardown(notif(4, 0), false, IDLE_HOLD)),
            row(
                "OpenSent: a second connection is left to collision detection",
                openSent(),
                new Event.TcpConnectionConfirmed(),
                State.OPEN_SENT,
                2),
            row(
                "OpenSent: TcpConnectionFails closes and listens in Active",
                openSent(),
                new Event.TcpConnectionFails(),
                State.ACTIVE,
                2,
                new DropTcp(),
                new StopTimer(Timer.HOLD),
                new StartTimer(Timer.CONNECT_RETRY, RETRY)),
            row(
                "OpenSent: a valid OPEN is answered with KEEPALIVE and the negotiated timers",
                openSent(),
                new Event.BgpOpen(N90),
                State.OPEN_CONFIRM,
                2,
                new StopTimer(Timer.CONNECT_RETRY),
                new SendKeepalive(),
                new StartTimer(Timer.KEEPALIVE, Duration.ofSeconds(30)),
                new StartTimer(Timer.HOLD, Duration.ofSeconds(90))),
            row(
                "OpenSent: a valid OPEN with hold time 0 stops the large hold timer",
                openSent(),
                new Event.BgpOpen(N0),
                State.OPEN_CONFIRM,
                2,
                new StopTimer(Timer.CONNECT_RETRY),
                new SendKeepalive(),
                new StopTimer(Timer.HOLD),
                new StopTimer(Timer.KEEPALIVE)),
            row(
                "OpenSent: a bad header is answered with its NOTIFICATION",
                openSent(),
                new Event.BgpHeaderErr(1, 2, LEN),
                State.IDLE,
                3,
                teardown(new SendNotification(1, 2, LEN), false, IDLE_HOLD)),
            row(
                "OpenSent: a bad OPEN is answered with its NOTIFICATION",
                openSent(),
                new Event.BgpOpenMsgErr(2, 2, LEN),
                State.IDLE,
                3,
                teardown(new SendNotification(2, 2, LEN), false, IDLE_HOLD)),
            row(
                "OpenSent: OpenCollisionDump sends Cease/Connection Collision Resolution",
                openSent(),
                new Event.OpenCollisionDump(),
                State.IDLE,
                3,
                teardown(notif(6, 7), false, IDLE_HOLD)),
            row(
                "OpenSent: NotifMsgVerErr closes without counting",
                openSent(),
                new Event.NotifMsgVerErr(),
                State.IDLE,
                2,
                teardown(null, false, IDLE_HOLD)),
            row(
                "OpenSent: a NOTIFICATION is not answered with one",
                openSent(),
                new Event.NotifMsg(),
                State.IDLE,
                3,
                teardown(null, false, IDLE_HOLD)),
            row(
                "OpenSent: a KEEPALIVE is an FSM error (RFC 6608 subcode 1)",
                openSent(),
                new Event.KeepAliveMsg(),
                State.IDLE,
                3,
                teardown(notif(5, 1), false, IDLE_HOLD)),
            row(
                "OpenSent: an UPDATE is an FSM error (RFC 6608 subcode 1)",
                openSent(),
                new Event.UpdateMsg(),
                State.IDLE,
                3,
                teardown(notif(5, 1), false, IDLE_HOLD)),
            row(
                "OpenSent: ConnectRetryTimer_Expires is an FSM error without a message subcode",
                openSent(),
                new Event.ConnectRetryTimerExpires(),
                State.IDLE,
                3,
                teardown(notif(5, 0), false, IDLE_HOLD)),

            // ---- OpenConfirm
            row(
                "OpenConfirm: start events are ignored",
                openConfirm(),
                new Event.ManualStart(),
                State.OPEN_CONFIRM,
                2),
            row(
                "OpenConfirm: ManualStop sends Cease and resets the counter",
                openConfirm(),
                new Event.ManualStop(),
                State.IDLE,
                0,
                teardown(notif(6, 2), false, null)),
            row(
                "OpenConfirm: AutomaticStop sends Cease",
                openConfirm(),
                new Event.AutomaticStop(2),
                State.IDLE,
                3,
                teardown(notif(6, 2), false, IDLE_HOLD)),
            row(
                "OpenConfirm: HoldTimer_Expires sends Hold Timer Expired",
                openConfirm(),
                new Event.HoldTimerExpires(),
                State.IDLE,
                3,
                teardown(notif(4, 0), false, IDLE_HOLD)),
            row(
                "OpenConfirm: KeepaliveTimer_Expires sends a KEEPALIVE and restarts the timer",
                openConfirm(),
                new Event.KeepaliveTimerExpires(),
                State.OPEN_CONFIRM,
                2,
                new SendKeepalive(),
                new StartTimer(Timer.KEEPALIVE, Duration.ofSeconds(30))),
            row(
                "OpenConfirm: a second connection is tracked",
                openConfirm(),
                new Event.TcpConnectionValid(),
                State.OPEN_CONFIRM,
                2),
            row(
                "OpenConfirm: TcpConnectionFails goes to Idle",
                openConfirm(),
                new Event.TcpConnectionFails(),
                State.IDLE,
                3,
                teardown(null, false, IDLE_HOLD)),
            row(
                "OpenConfirm: a NOTIFICATION goes to Idle",
                openConfirm(),
                new Event.NotifMsg(),
                State.IDLE,
                3,
                teardown(null, false, IDLE_HOLD)),
            row(
                "OpenConfirm: NotifMsgVerErr goes to Idle without counting",
                openConfirm(),
                new Event.NotifMsgVerErr(),
                State.IDLE,
                2,
                teardown(null, false, IDLE_HOLD)),
            row(
                "OpenConfirm: OpenCollisionDump sends Cease/Connection Collision Resolution",
                openConfirm(),
                new Event.OpenCollisionDump(),
                State.IDLE,
                3,
                teardown(notif(6, 7), false, IDLE_HOLD)),
            row(
                "OpenConfirm: a bad header is answered with its NOTIFICATION",
                openConfirm(),
                new Event.BgpHeaderErr(1, 1, ByteBuffer.allocate(0)),
                State.IDLE,
                3,
                teardown(notif(1, 1), false, IDLE_HOLD)),
            row(
                "OpenConfirm: a KEEPALIVE establishes the session",
                openConfirm(),
                new Event.KeepAliveMsg(),
                State.ESTABLISHED,
                2,
                new StartTimer(Timer.HOLD, Duration.ofSeconds(90)),
                new StartTimer(Timer.SEND_HOLD, Duration.ofMinutes(8)),
                new StartTimer(Timer.STABLE, CFG.stableTime()),
                new SessionEstablished(N90)),
            row(
                "OpenConfirm: an UPDATE is an FSM error (RFC 6608 subcode 2)",
                openConfirm(),
                new Event.UpdateMsg(),
                State.IDLE,
                3,
                teardown(notif(5, 2), false, IDLE_HOLD)),
            row(
                "OpenConfirm: a second OPEN on the connection is an FSM error",
                openConfirm(),
                new Event.BgpOpen(N90),
                State.IDLE,
                3,
                teardown(notif(5, 2), false, IDLE_HOLD)),

            // ---- Established
            row(
                "Established: start events are ignored",
                established(),
                new Event.ManualStart(),
                State.ESTABLISHED,
                2),
            row(
                "Established: ManualStop sends Cease, deletes the routes and resets the counter",
                established(),
                new Event.ManualStop(),
                State.IDLE,
                0,
                teardown(notif(6, 2), true, null)),
            row(
                "Established: AutomaticStop (max-prefix) sends Cease/1 and deletes the routes",
                established(),
                new Event.AutomaticStop(1),
                State.IDLE,
                3,
                teardown(notif(6, 1), true, IDLE_HOLD)),
            row(
                "Established: max-prefix without a restart timer sends Cease/1 with AFI/SAFI/bound and stays down",
                established(),
                new Event.AutomaticStop(1, MAX_PREFIX_DATA, false, null),
                State.IDLE,
                3,
                teardown(new SendNotification(6, 1, MAX_PREFIX_DATA), true, null)),
            row(
                "Established: max-prefix with a restart timer restarts after that time, not the IdleHoldTime",
                established(),
                new Event.AutomaticStop(1, MAX_PREFIX_DATA, true, Duration.ofSeconds(30)),
                State.IDLE,
                3,
                teardown(
                    new SendNotification(6, 1, MAX_PREFIX_DATA), true, Duration.ofSeconds(30))),
            row(
                "Established: HoldTimer_Expires sends Hold Timer Expired",
                established(),
                new Event.HoldTimerExpires(),
                State.IDLE,
                3,
                teardown(notif(4, 0), true, IDLE_HOLD)),
            row(
                "Established: KeepaliveTimer_Expires sends a KEEPALIVE and restarts the timer",
                established(),
                new Event.KeepaliveTimerExpires(),
                State.ESTABLISHED,
                2,
                new SendKeepalive(),
                new StartTimer(Timer.KEEPALIVE, Duration.ofSeconds(30))),
            row(
                "Established: with hold time 0 a KEEPALIVE sent does not restart the timer",
                establishedNoHold(),
                new Event.KeepaliveTimerExpires(),
                State.ESTABLISHED,
                2,
                new SendKeepalive()),
            row(
                "Established: a KEEPALIVE restarts the HoldTimer",
                established(),
                new Event.KeepAliveMsg(),
                State.ESTABLISHED,
                2,
                new StartTimer(Timer.HOLD, Duration.ofSeconds(90))),
            row(
                "Established: with hold time 0 a KEEPALIVE restarts nothing",
                establishedNoHold(),
                new Event.KeepAliveMsg(),
                State.ESTABLISHED,
                2),
            row(
                "Established: an UPDATE is processed and restarts the HoldTimer",
                established(),
                new Event.UpdateMsg(),
                State.ESTABLISHED,
                2,
                new ProcessUpdate(),
                new StartTimer(Timer.HOLD, Duration.ofSeconds(90))),
            row(
                "Established: an UPDATE error sends its NOTIFICATION and deletes the routes",
                established(),
                new Event.UpdateMsgErr(3, 1, ByteBuffer.allocate(0)),
                State.IDLE,
                3,
                teardown(notif(3, 1), true, IDLE_HOLD)),
            row(
                "Established: a NOTIFICATION deletes the routes without damping",
                established(),
                new Event.NotifMsg(),
                State.IDLE,
                3,
                teardown(null, true, IDLE_HOLD)),
            row(
                "Established: TcpConnectionFails deletes the routes",
                established(),
                new Event.TcpConnectionFails(),
                State.IDLE,
                3,
                teardown(null, true, IDLE_HOLD)),
            row(
                "Established: OpenCollisionDump sends Cease/7",
                established(),
                new Event.OpenCollisionDump(),
                State.IDLE,
                3,
                teardown(notif(6, 7), true, IDLE_HOLD)),
            row(
                "Established: an OPEN is an FSM error (RFC 6608 subcode 3)",
                established(),
                new Event.BgpOpen(N90),
                State.IDLE,
                3,
                teardown(notif(5, 3), true, IDLE_HOLD)),
            row(
                "Established: a bad header is answered with its NOTIFICATION",
                established(),
                new Event.BgpHeaderErr(1, 2, LEN),
                State.IDLE,
                3,
                teardown(new SendNotification(1, 2, LEN), true, IDLE_HOLD)),
            row(
                "Established: SendHoldTimer_Expires sends Send Hold Timer Expired (RFC 9687)",
                established(),
                new Event.SendHoldTimerExpires(),
                State.IDLE,
                3,
                teardown(notif(8, 0), true, IDLE_HOLD)),
            row(
                "Established: ConnectRetryTimer_Expires is an FSM error",
                established(),
                new Event.ConnectRetryTimerExpires(),
                State.IDLE,
                3,
                teardown(notif(5, 0), true, IDLE_HOLD)),
            row(
                "Established: a second connection is tracked",
                established(),
                new Event.TcpConnectionConfirmed(),
                State.ESTABLISHED,
                2))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void rowOfRfc4271Section822(Row r) {
    Transition t = Fsm.step(r.config(), r.from(), r.event());
    assertEquals(r.to(), t.next().state(), "next state");
    assertEquals(r.counter(), t.next().connectRetryCounter(), "ConnectRetryCounter");
    assertEquals(r.actions(), t.actions(), "actions");
  }
}
