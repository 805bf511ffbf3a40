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

/** RFC 4271 §8.2.2, the rows from Active and OpenSent (see {@link FsmTable}). */
class FsmActiveOpenSentTableTest extends FsmTable {
  static Stream<Arguments> rows() {
    return Stream.of(
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
                "OpenSent: Cease/Connection Rejected before the OPEN waits in Active, listening",
                openSent(),
                new Event.ConnectionRejected(),
                State.ACTIVE,
                3,
                new StopTimer(Timer.HOLD),
                new DropTcp(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY)),
            row(
                "OpenSent: a rejection after rejections in a row backs off the ConnectRetryTimer",
                openSent().withConnectFailures(2),
                new Event.ConnectionRejected(),
                State.ACTIVE,
                3,
                new StopTimer(Timer.HOLD),
                new DropTcp(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY.multipliedBy(4))),
            row(
                "Active: Cease/Connection Rejected while delaying the OPEN stays in Active",
                DELAY,
                activeDelayed(),
                new Event.ConnectionRejected(),
                State.ACTIVE,
                1,
                new StopTimer(Timer.DELAY_OPEN),
                new DropTcp(),
                new StartTimer(Timer.CONNECT_RETRY, RETRY)),
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
                teardown(notif(5, 0), false, IDLE_HOLD)))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void rowOfRfc4271Section822(Row r) {
    check(r);
  }
}
