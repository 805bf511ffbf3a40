package dev.sart.bgp.fsm;

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
import dev.sart.bgp.wire.Iana;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 4271 §8.2.2 as a pure function: {@code step(config, session, event) → (session', actions)}.
 * No I/O, no clock, no threads: the peer layer performs the actions, owns the timers and feeds
 * their expiry back as events.
 *
 * <p>Where we depart from the letter of §8.2.2 the method says so and why. The main ones: a passive
 * peer never initiates a connection (operators' meaning of "passive"); a failed connect waits in
 * Active, listening, instead of Idle ({@code connectFailed}), and so does a connection the peer
 * refused with Cease / Connection Rejected ({@code connectionRejected}), the ConnectRetryTimer
 * backing off; a NOTIFICATION is never answered with a NOTIFICATION; FSM errors carry the RFC 6608
 * subcodes; Idle restarts the session by itself after the IdleHoldTimer (whose value doubles with
 * DampPeerOscillations).
 */
public final class Fsm {
  // NOTIFICATION error codes and subcodes the FSM itself sends, from the IANA registry
  static final int HOLD_TIMER_EXPIRED = Iana.ErrorCode.HOLD_TIMER_EXPIRED; // RFC 4271 §4.5
  static final int FSM_ERROR = Iana.ErrorCode.FSM;
  static final int CEASE = Iana.ErrorCode.CEASE;
  static final int SEND_HOLD_TIMER_EXPIRED = Iana.ErrorCode.SEND_HOLD_TIMER_EXPIRED; // RFC 9687 §5
  // RFC 6608 §3: FSM error subcodes
  static final int FSM_UNSPECIFIED = Iana.ErrorSubcode.UNSPECIFIC;
  static final int FSM_UNEXPECTED_IN_OPEN_SENT = Iana.ErrorSubcode.UNEXPECTED_MESSAGE_IN_OPEN_SENT;
  static final int FSM_UNEXPECTED_IN_OPEN_CONFIRM =
      Iana.ErrorSubcode.UNEXPECTED_MESSAGE_IN_OPEN_CONFIRM;
  static final int FSM_UNEXPECTED_IN_ESTABLISHED =
      Iana.ErrorSubcode.UNEXPECTED_MESSAGE_IN_ESTABLISHED;
  // RFC 4486 §4: Cease subcodes
  static final int CEASE_CONNECTION_COLLISION_RESOLUTION =
      Iana.ErrorSubcode.CONNECTION_COLLISION_RESOLUTION;

  private Fsm() {}

  /** One step of the FSM. */
  public static Transition step(FsmConfig config, Session session, Event event) {
    Step s = new Step(config, session);
    // §8.2.2: "The start events (Events 1, 3-7) are ignored" in every state but Idle
    if (session.state() != State.IDLE && isStart(event)) {
      return new Transition(session, List.of());
    }
    switch (session.state()) {
      case IDLE -> idle(s, event);
      case CONNECT -> connect(s, event);
      case ACTIVE -> active(s, event);
      case OPEN_SENT -> openSent(s, event);
      case OPEN_CONFIRM -> openConfirm(s, event);
      case ESTABLISHED -> established(s, event);
    }
    return new Transition(s.session, s.actions);
  }

  private static boolean isStart(Event e) {
    return switch (e) {
      case Event.ManualStart m -> true;
      case Event.AutomaticStart a -> true;
      case Event.ManualStartWithPassiveTcpEstablishment m -> true;
      case Event.AutomaticStartWithPassiveTcpEstablishment a -> true;
      case Event.AutomaticStartWithDampPeerOscillations a -> true;
      case Event.AutomaticStartWithDampPeerOscillationsAndPassiveTcpEstablishment a -> true;
      default -> false;
    };
  }

  // --- Idle
  // ---------------------------------------------------------------------------------------

  private static void idle(Step s, Event e) {
    switch (e) {
      case Event.ManualStart m -> s.start(s.config.passive());
      case Event.AutomaticStart a -> s.start(s.config.passive());
      case Event.ManualStartWithPassiveTcpEstablishment m -> s.start(true);
      case Event.AutomaticStartWithPassiveTcpEstablishment a -> s.start(true);
      // Events 6, 7 and 13 are how the system restarts a damped peer (§8.2.2 leaves the method
      // open):
      // the restart waits for the IdleHoldTimer, whose expiry starts the session.
      case Event.AutomaticStartWithDampPeerOscillations a -> s.scheduleRestart();
      case Event.AutomaticStartWithDampPeerOscillationsAndPassiveTcpEstablishment a ->
          s.scheduleRestart();
      case Event.IdleHoldTimerExpires t -> {
        if (s.session.automaticRestart()) {
          s.start(s.config.passive());
        }
      }
      // An operator's stop also cancels a pending automatic restart.
      case Event.ManualStop m -> {
        s.session = s.session.withAutomaticRestart(false);
        s.act(new StopTimer(Timer.IDLE_HOLD));
      }
      // "refuses all incoming BGP connections for this peer"
      case Event.TcpConnectionValid t -> s.act(new DropTcp());
      case Event.TcpCrAcked t -> s.act(new DropTcp());
      case Event.TcpConnectionConfirmed t -> s.act(new DropTcp());
      // Events 8-12, 15, 18-29 and ours: no change.
      default -> {}
    }
  }

  // --- Connect
  // ------------------------------------------------------------------------------------

  private static void connect(Step s, Event e) {
    switch (e) {
      case Event.ManualStop m -> s.manualStop(null);
      // Our attempt got no answer within the ConnectRetryTime: it counts as a failed connect, so
      // the next wait is longer (see connectFailed).
      case Event.ConnectRetryTimerExpires t -> {
        s.session = s.session.withConnectFailures(s.session.connectFailures() + 1);
        s.act(new DropTcp());
        s.act(
            new StartTimer(
                Timer.CONNECT_RETRY, s.config.connectRetryTimeAfter(s.session.connectFailures())));
        s.stopDelayOpenTimer();
        s.act(new ConnectTcp());
      }
      case Event.DelayOpenTimerExpires t -> s.sendOpen();
      case Event.TcpConnectionValid t -> {}
      case Event.TcpCrInvalid t -> {}
      case Event.TcpCrAcked t -> s.connectionUp(false);
      case Event.TcpConnectionConfirmed t -> s.connectionUp(true);
      case Event.ConnectionRejected r -> s.connectionRejected();
      case Event.TcpConnectionFails t -> {
        if (s.session.delayOpenTimerRunning()) {
          s.act(new StartTimer(Timer.CONNECT_RETRY, s.config.connectRetryTime()));
          s.stopDelayOpenTimer();
          s.to(State.ACTIVE);
        } else {
          s.connectFailed();
        }
      }
      case Event.BgpOpen o when s.session.delayOpenTimerRunning() ->
          s.openWhileDelayed(o.negotiated());
      case Event.BgpHeaderErr h ->
          s.toIdle(
              s.config.sendNotificationWithoutOpen() ? notice(h) : null, Counter.INCREMENT, true);
      case Event.BgpOpenMsgErr o ->
          s.toIdle(
              s.config.sendNotificationWithoutOpen() ? notice(o) : null, Counter.INCREMENT, true);
      case Event.NotifMsgVerErr n -> {
        boolean delayed = s.session.delayOpenTimerRunning();
        s.toIdle(null, delayed ? Counter.KEEP : Counter.INCREMENT, !delayed);
      }
      // Events 8, 10-11, 13, 19, 23, 25-28 (and 29, ours)
      default -> s.toIdle(null, Counter.INCREMENT, true);
    }
  }

  // --- Active
  // -------------------------------------------------------------------------------------

  private static void active(Step s, Event e) {
    switch (e) {
      case Event.ManualStop m ->
          s.manualStop(
              s.session.delayOpenTimerRunning() && s.config.sendNotificationWithoutOpen()
                  ? SendNotification.of(CEASE, m.ceaseSubcode())
                  : null);
      case Event.ConnectRetryTimerExpires t -> {
        // A passive peer keeps waiting: it never initiates (departure from §8.2.2, see class
        // comment).
        if (!s.config.passive()) {
          s.act(
              new StartTimer(
                  Timer.CONNECT_RETRY,
                  s.config.connectRetryTimeAfter(s.session.connectFailures())));
          s.act(new ConnectTcp());
          s.to(State.CONNECT);
        }
      }
      case Event.DelayOpenTimerExpires t -> s.sendOpen();
      case Event.TcpConnectionValid t -> {}
      case Event.TcpCrInvalid t -> {}
      case Event.TcpCrAcked t -> s.connectionUp(false);
      case Event.TcpConnectionConfirmed t -> s.connectionUp(true);
      case Event.ConnectionRejected r -> s.connectionRejected();
      case Event.TcpConnectionFails t -> s.toIdle(null, Counter.INCREMENT, true);
      case Event.BgpOpen o when s.session.delayOpenTimerRunning() ->
          s.openWhileDelayed(o.negotiated());
      case Event.BgpHeaderErr h ->
          s.toIdle(
              s.config.sendNotificationWithoutOpen() ? notice(h) : null, Counter.INCREMENT, true);
      case Event.BgpOpenMsgErr o ->
          s.toIdle(
              s.config.sendNotificationWithoutOpen() ? notice(o) : null, Counter.INCREMENT, true);
      case Event.NotifMsgVerErr n -> {
        boolean delayed = s.session.delayOpenTimerRunning();
        s.toIdle(null, delayed ? Counter.KEEP : Counter.INCREMENT, !delayed);
      }
      // Events 8, 10-11, 13, 19, 23, 25-28
      default -> s.toIdle(null, Counter.INCREMENT, true);
    }
  }

  // --- OpenSent
  // -----------------------------------------------------------------------------------

  private static void openSent(Step s, Event e) {
    switch (e) {
      case Event.ManualStop m -> s.manualStop(SendNotification.of(CEASE, m.ceaseSubcode()));
      case Event.AutomaticStop a -> s.automaticStop(a);
      case Event.HoldTimerExpires t ->
          s.toIdle(SendNotification.of(HOLD_TIMER_EXPIRED, 0), Counter.INCREMENT, true);
      // A second connection is tracked by the peer layer for collision detection (§6.8).
      case Event.TcpConnectionValid t -> {}
      case Event.TcpCrAcked t -> {}
      case Event.TcpConnectionConfirmed t -> {}
      case Event.TcpCrInvalid t -> {}
      case Event.TcpConnectionFails t -> {
        s.act(new DropTcp());
        s.act(new StopTimer(Timer.HOLD));
        s.act(new StartTimer(Timer.CONNECT_RETRY, s.config.connectRetryTime()));
        s.to(State.ACTIVE);
      }
      case Event.BgpOpen o -> {
        s.stopDelayOpenTimer();
        s.act(new StopTimer(Timer.CONNECT_RETRY));
        s.act(new SendKeepalive());
        s.startNegotiatedTimers(o.negotiated());
        s.to(State.OPEN_CONFIRM);
      }
      case Event.BgpHeaderErr h -> s.toIdle(notice(h), Counter.INCREMENT, true);
      case Event.BgpOpenMsgErr o -> s.toIdle(notice(o), Counter.INCREMENT, true);
      case Event.OpenCollisionDump c ->
          s.toIdle(
              SendNotification.of(CEASE, CEASE_CONNECTION_COLLISION_RESOLUTION),
              Counter.INCREMENT,
              true);
      case Event.NotifMsgVerErr n -> s.toIdle(null, Counter.KEEP, false);
      // §8.2.2 lists event 25 among "any other event" (answered with an FSM error); a NOTIFICATION
      // is never answered with one (§6.4: the connection closes right after it), so we only close.
      case Event.NotifMsg n -> s.toIdle(null, Counter.INCREMENT, true);
      case Event.ConnectionRejected r -> s.connectionRejected();
      case Event.KeepAliveMsg k -> s.fsmError(FSM_UNEXPECTED_IN_OPEN_SENT);
      case Event.UpdateMsg u -> s.fsmError(FSM_UNEXPECTED_IN_OPEN_SENT);
      case Event.UpdateMsgErr u -> s.fsmError(FSM_UNEXPECTED_IN_OPEN_SENT);
      // Events 9, 11-13 (timers that cannot run here) and ours
      default -> s.fsmError(FSM_UNSPECIFIED);
    }
  }

  // --- OpenConfirm
  // --------------------------------------------------------------------------------

  private static void openConfirm(Step s, Event e) {
    switch (e) {
      case Event.ManualStop m -> s.manualStop(SendNotification.of(CEASE, m.ceaseSubcode()));
      case Event.AutomaticStop a -> s.automaticStop(a);
      case Event.HoldTimerExpires t ->
          s.toIdle(SendNotification.of(HOLD_TIMER_EXPIRED, 0), Counter.INCREMENT, true);
      case Event.KeepaliveTimerExpires t -> {
        s.act(new SendKeepalive());
        s.act(new StartTimer(Timer.KEEPALIVE, s.session.negotiated().keepaliveTime()));
      }
      case Event.TcpConnectionValid t -> {}
      case Event.TcpCrAcked t -> {}
      case Event.TcpConnectionConfirmed t -> {}
      case Event.TcpCrInvalid t -> {}
      case Event.TcpConnectionFails t -> s.toIdle(null, Counter.INCREMENT, true);
      // the peer's OPEN was accepted: a rejection now is an error like any other NOTIFICATION
      case Event.NotifMsg n -> s.toIdle(null, Counter.INCREMENT, true);
      case Event.ConnectionRejected r -> s.toIdle(null, Counter.INCREMENT, true);
      case Event.NotifMsgVerErr n -> s.toIdle(null, Counter.KEEP, false);
      // The peer layer resolves collisions before an OPEN reaches an FSM (and sends event 23 to the
      // loser); a second OPEN on this very connection is an unexpected message.
      case Event.BgpOpen o -> s.fsmError(FSM_UNEXPECTED_IN_OPEN_CONFIRM);
      case Event.BgpHeaderErr h -> s.toIdle(notice(h), Counter.INCREMENT, true);
      case Event.BgpOpenMsgErr o -> s.toIdle(notice(o), Counter.INCREMENT, true);
      case Event.OpenCollisionDump c ->
          s.toIdle(
              SendNotification.of(CEASE, CEASE_CONNECTION_COLLISION_RESOLUTION),
              Counter.INCREMENT,
              true);
      case Event.KeepAliveMsg k -> {
        Negotiated n = s.session.negotiated();
        if (!n.holdTime().isZero()) {
          s.act(new StartTimer(Timer.HOLD, n.holdTime()));
        }
        s.act(new StartTimer(Timer.SEND_HOLD, s.config.sendHoldTimeFor(n.holdTime())));
        if (s.config.dampPeerOscillations()) {
          s.act(new StartTimer(Timer.STABLE, s.config.stableTime()));
        }
        s.to(State.ESTABLISHED);
        s.act(new SessionEstablished(n));
      }
      case Event.UpdateMsg u -> s.fsmError(FSM_UNEXPECTED_IN_OPEN_CONFIRM);
      case Event.UpdateMsgErr u -> s.fsmError(FSM_UNEXPECTED_IN_OPEN_CONFIRM);
      // Events 9, 12-13 (timers that cannot run here) and ours
      default -> s.fsmError(FSM_UNSPECIFIED);
    }
  }

  // --- Established
  // --------------------------------------------------------------------------------

  private static void established(Step s, Event e) {
    Negotiated n = s.session.negotiated();
    switch (e) {
      case Event.ManualStop m -> s.manualStop(SendNotification.of(CEASE, m.ceaseSubcode()));
      case Event.AutomaticStop a -> s.automaticStop(a);
      case Event.HoldTimerExpires t ->
          s.toIdle(SendNotification.of(HOLD_TIMER_EXPIRED, 0), Counter.INCREMENT, true);
      case Event.KeepaliveTimerExpires t -> {
        s.act(new SendKeepalive());
        if (!n.holdTime().isZero()) {
          s.act(new StartTimer(Timer.KEEPALIVE, n.keepaliveTime()));
        }
      }
      case Event.TcpConnectionValid t -> {}
      case Event.TcpCrAcked t -> {}
      case Event.TcpConnectionConfirmed t -> {}
      case Event.TcpCrInvalid t -> {}
      case Event.OpenCollisionDump c ->
          s.toIdle(
              SendNotification.of(CEASE, CEASE_CONNECTION_COLLISION_RESOLUTION),
              Counter.INCREMENT,
              true);
      // §8.2.2: these three increment the counter but do not damp.
      case Event.TcpConnectionFails t -> s.toIdle(null, Counter.INCREMENT, false);
      case Event.NotifMsgVerErr v -> s.toIdle(null, Counter.INCREMENT, false);
      case Event.NotifMsg v -> s.toIdle(null, Counter.INCREMENT, false);
      case Event.ConnectionRejected v -> s.toIdle(null, Counter.INCREMENT, false);
      case Event.KeepAliveMsg k -> s.restartHoldTimer();
      case Event.UpdateMsg u -> {
        s.act(new ProcessUpdate());
        s.restartHoldTimer();
      }
      case Event.UpdateMsgErr u -> s.toIdle(notice(u), Counter.INCREMENT, true);
      // §6.1: a bad header is answered with the header error itself, in every state.
      case Event.BgpHeaderErr h -> s.toIdle(notice(h), Counter.INCREMENT, true);
      case Event.BgpOpen o -> s.fsmError(FSM_UNEXPECTED_IN_ESTABLISHED);
      case Event.BgpOpenMsgErr o -> s.fsmError(FSM_UNEXPECTED_IN_ESTABLISHED);
      // RFC 9687 §4: the peer stopped reading; try to say why, then close.
      case Event.SendHoldTimerExpires t ->
          s.toIdle(SendNotification.of(SEND_HOLD_TIMER_EXPIRED, 0), Counter.INCREMENT, true);
      case Event.StableTimerExpires t ->
          s.session = s.session.withIdleHoldTime(s.config.idleHoldTime());
      // Events 9, 12-13 (timers that cannot run here)
      default -> s.fsmError(FSM_UNSPECIFIED);
    }
  }

  private static SendNotification notice(Event.BgpHeaderErr e) {
    return new SendNotification(e.code(), e.subcode(), e.data());
  }

  private static SendNotification notice(Event.BgpOpenMsgErr e) {
    return new SendNotification(e.code(), e.subcode(), e.data());
  }

  private static SendNotification notice(Event.UpdateMsgErr e) {
    return new SendNotification(e.code(), e.subcode(), e.data());
  }

  private enum Counter {
    KEEP,
    INCREMENT,
    RESET
  }

  /** The transition being built. */
  private static final class Step {
    final FsmConfig config;
    Session session;
    final List<Action> actions = new ArrayList<>();

    Step(FsmConfig config, Session session) {
      this.config = config;
      this.session = session;
    }

    void act(Action a) {
      actions.add(a);
    }

    void to(State state) {
      session = session.with(state);
    }

    /** Idle, events 1/3/4/5 (and 13): initialise, then connect or wait for the peer. */
    void start(boolean passive) {
      act(new StopTimer(Timer.IDLE_HOLD));
      act(new InitializeResources());
      session = session.withCounter(0).withAutomaticRestart(true).withConnectFailures(0);
      if (passive) {
        // §8.2.2 also starts the ConnectRetryTimer, whose expiry in Active would connect; a passive
        // peer never connects, so it has no use for it.
        to(State.ACTIVE);
      } else {
        act(new StartTimer(Timer.CONNECT_RETRY, config.connectRetryTime()));
        act(new ConnectTcp());
        to(State.CONNECT);
      }
    }

    /** Idle, events 6/7: restart once the IdleHoldTimer expires. */
    void scheduleRestart() {
      session = session.withAutomaticRestart(true);
      act(new StartTimer(Timer.IDLE_HOLD, session.idleHoldTime()));
    }

    /**
     * Connect, event 18 without DelayOpen: our connect failed (refused, unreachable, reset).
     *
     * <p>§8.2.2 sends the FSM to Idle here, and Idle "refuses all incoming BGP connections" until
     * the IdleHoldTimer restarts it: against a peer that only connects (ExaBGP by default, a peer
     * configured passive) the session then hardly ever comes up, the peer's attempts landing in
     * Idle. We do what the same paragraph prescribes when the DelayOpenTimer runs, and what BIRD,
     * FRR, GoBGP and OpenBGPD do: restart the ConnectRetryTimer, "continue to listen for a
     * connection that may be initiated by the remote BGP peer", and go to Active, where the
     * ConnectRetryTimer's expiry connects again (event 9). The wait doubles with each connect that
     * fails in a row (§8.1.1 DampPeerOscillations), so an absent peer is not tried every second.
     * The ConnectRetryCounter is left alone, as on the RFC's way to Idle.
     */
    void connectFailed() {
      session = session.withConnectFailures(session.connectFailures() + 1);
      act(
          new StartTimer(
              Timer.CONNECT_RETRY, config.connectRetryTimeAfter(session.connectFailures())));
      to(State.ACTIVE);
    }

    /**
     * OpenSent, or Connect/Active while the DelayOpenTimer runs: the peer sent Cease / Connection
     * Rejected (RFC 4486 §4) before its OPEN (event 101, ours). §8.2.2 sends the FSM to Idle on any
     * NOTIFICATION here, damped; but a speaker in Idle "refuses all incoming BGP connections", and
     * the peer that refused us is in Idle itself (or has its connection already) and will connect
     * when its IdleHoldTimer ends. Two speakers that each answer the other in Idle with this Cease
     * then refuse each other in turn for ever, each connecting while the other waits in Idle, the
     * wait doubling each time (two sart nodes did). We handle it as our connect refused ({@link
     * #connectFailed}): the connection goes, the counter counts it, the ConnectRetryTimer backs off
     * (the failures in a row are kept until the peer connects or sends its OPEN), and we wait in
     * Active, where the peer's connection is accepted.
     */
    void connectionRejected() {
      if (session.state() == State.OPEN_SENT) {
        act(new StopTimer(Timer.HOLD));
      }
      stopDelayOpenTimer();
      act(new DropTcp());
      session =
          session
              .withCounter(session.connectRetryCounter() + 1)
              .withConnectFailures(session.connectFailures() + 1);
      act(
          new StartTimer(
              Timer.CONNECT_RETRY, config.connectRetryTimeAfter(session.connectFailures())));
      to(State.ACTIVE);
    }

    /**
     * Connect/Active, events 16/17: the connection is up. The back-off of our connects is forgotten
     * when the peer connected to us ({@code incoming}, event 17) or, for our own connection, once
     * its OPEN arrives ({@link #startNegotiatedTimers}): a peer that accepts the connection only to
     * refuse it ({@link #connectionRejected}) is not yet answering.
     */
    void connectionUp(boolean incoming) {
      if (incoming) {
        session = session.withConnectFailures(0);
      }
      act(new StopTimer(Timer.CONNECT_RETRY));
      if (config.delayOpen()) {
        act(new StartTimer(Timer.DELAY_OPEN, config.delayOpenTime()));
        session = session.withDelayOpenTimerRunning(true);
      } else {
        act(new InitializeResources());
        sendOpen();
      }
    }

    /** Send our OPEN and wait for the peer's with a large hold timer. */
    void sendOpen() {
      if (session.delayOpenTimerRunning()) {
        act(new StopTimer(Timer.CONNECT_RETRY));
        stopDelayOpenTimer();
        act(new InitializeResources());
      }
      act(new SendOpen());
      act(new StartTimer(Timer.HOLD, config.largeHoldTime()));
      to(State.OPEN_SENT);
    }

    /** Connect/Active, event 20: the peer's OPEN arrived while we were delaying ours. */
    void openWhileDelayed(Negotiated n) {
      act(new StopTimer(Timer.CONNECT_RETRY));
      act(new InitializeResources());
      stopDelayOpenTimer();
      act(new SendOpen());
      act(new SendKeepalive());
      startNegotiatedTimers(n);
      to(State.OPEN_CONFIRM);
    }

    /**
     * The peer's OPEN was accepted (events 19/20): §4.2, hold time 0 means no Hold and no Keepalive
     * timer. The peer answers, so the back-off of our connects is forgotten.
     */
    void startNegotiatedTimers(Negotiated n) {
      session = session.withNegotiated(n).withConnectFailures(0);
      if (n.holdTime().isZero()) {
        act(new StopTimer(Timer.HOLD));
        act(new StopTimer(Timer.KEEPALIVE));
      } else {
        act(new StartTimer(Timer.KEEPALIVE, n.keepaliveTime()));
        act(new StartTimer(Timer.HOLD, n.holdTime()));
      }
    }

    void restartHoldTimer() {
      Negotiated n = session.negotiated();
      if (!n.holdTime().isZero()) {
        act(new StartTimer(Timer.HOLD, n.holdTime()));
      }
    }

    void stopDelayOpenTimer() {
      if (session.delayOpenTimerRunning()) {
        act(new StopTimer(Timer.DELAY_OPEN));
        session = session.withDelayOpenTimerRunning(false);
      }
    }

    /**
     * Event 8 in OpenSent, OpenConfirm and Established (§8.2.2): Cease, counter + 1, Idle. The
     * restart after it is the caller's choice: as after an error (damped), after a fixed time (the
     * max-prefix restart timer, not damped), or none.
     */
    void automaticStop(Event.AutomaticStop a) {
      SendNotification n = new SendNotification(CEASE, a.ceaseSubcode(), a.data());
      if (!a.automaticRestart()) {
        session = session.withAutomaticRestart(false);
        toIdle(n, Counter.INCREMENT, false);
      } else if (a.restartAfter() != null) {
        toIdle(n, Counter.INCREMENT, false, a.restartAfter());
      } else {
        toIdle(n, Counter.INCREMENT, true);
      }
    }

    void manualStop(SendNotification notification) {
      session = session.withAutomaticRestart(false);
      toIdle(notification, Counter.RESET, false);
    }

    /** An unexpected event: RFC 6608 FSM error, then Idle. */
    void fsmError(int subcode) {
      toIdle(SendNotification.of(FSM_ERROR, subcode), Counter.INCREMENT, true);
    }

    /**
     * The common way to Idle: NOTIFICATION (if any), timers stopped, resources released (routes
     * deleted when leaving Established), connection dropped, counter updated, and, unless an
     * operator stopped the session, an automatic restart after the IdleHoldTimer. With
     * DampPeerOscillations, each damped error doubles the next IdleHoldTime up to the maximum.
     */
    void toIdle(SendNotification notification, Counter counter, boolean damp) {
      toIdle(notification, counter, damp, null);
    }

    /**
     * {@code wait}: the IdleHoldTimer of this restart only, instead of the session's IdleHoldTime
     * (null: that).
     */
    void toIdle(
        SendNotification notification, Counter counter, boolean damp, Duration waitOverride) {
      if (notification != null) {
        act(notification);
      }
      boolean leavingEstablished = session.state() == State.ESTABLISHED;
      for (Timer t :
          List.of(
              Timer.CONNECT_RETRY,
              Timer.DELAY_OPEN,
              Timer.HOLD,
              Timer.KEEPALIVE,
              Timer.SEND_HOLD,
              Timer.STABLE)) {
        act(new StopTimer(t));
      }
      act(new ReleaseResources(leavingEstablished));
      act(new DropTcp());
      int c =
          switch (counter) {
            case KEEP -> session.connectRetryCounter();
            case INCREMENT -> session.connectRetryCounter() + 1;
            case RESET -> 0;
          };
      Duration wait = session.idleHoldTime();
      Duration next = wait;
      if (damp && config.dampPeerOscillations()) {
        Duration doubled = wait.multipliedBy(2);
        next = doubled.compareTo(config.maxIdleHoldTime()) > 0 ? config.maxIdleHoldTime() : doubled;
      }
      session =
          session
              .withCounter(c)
              .withDelayOpenTimerRunning(false)
              .withNegotiated(null)
              .withIdleHoldTime(next);
      if (session.automaticRestart()) {
        act(new StartTimer(Timer.IDLE_HOLD, waitOverride != null ? waitOverride : wait));
      }
      to(State.IDLE);
    }
  }
}
