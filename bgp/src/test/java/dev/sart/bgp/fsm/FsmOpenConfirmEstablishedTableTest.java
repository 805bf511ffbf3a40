package dev.sart.bgp.fsm;

import dev.sart.bgp.fsm.Action.ProcessUpdate;
import dev.sart.bgp.fsm.Action.SendKeepalive;
import dev.sart.bgp.fsm.Action.SendNotification;
import dev.sart.bgp.fsm.Action.SessionEstablished;
import dev.sart.bgp.fsm.Action.StartTimer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** RFC 4271 §8.2.2, the rows from OpenConfirm and Established (see {@link FsmTable}). */
class FsmOpenConfirmEstablishedTableTest extends FsmTable {
  static Stream<Arguments> rows() {
    return Stream.of(
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
                "OpenConfirm: Cease/Connection Rejected after the OPEN is a NOTIFICATION as any",
                openConfirm(),
                new Event.ConnectionRejected(),
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
                "Established: Cease/Connection Rejected is a NOTIFICATION as any",
                established(),
                new Event.ConnectionRejected(),
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
    check(r);
  }
}
