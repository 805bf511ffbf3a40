package dev.sart.bgp.fsm;

import dev.sart.bgp.fsm.Action.ConnectTcp;
import dev.sart.bgp.fsm.Action.DropTcp;
import dev.sart.bgp.fsm.Action.InitializeResources;
import dev.sart.bgp.fsm.Action.SendKeepalive;
import dev.sart.bgp.fsm.Action.SendNotification;
import dev.sart.bgp.fsm.Action.SendOpen;
import dev.sart.bgp.fsm.Action.StartTimer;
import dev.sart.bgp.fsm.Action.StopTimer;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** RFC 4271 §8.2.2, the rows from Idle and Connect (see {@link FsmTable}). */
class FsmIdleConnectTableTest extends FsmTable {
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
                0))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void rowOfRfc4271Section822(Row r) {
    check(r);
  }
}
