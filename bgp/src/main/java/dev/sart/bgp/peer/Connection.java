package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Action;
import dev.sart.bgp.fsm.Event;
import dev.sart.bgp.fsm.Fsm;
import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.fsm.OpenCheck;
import dev.sart.bgp.fsm.ReceiveErrors;
import dev.sart.bgp.fsm.Session;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.fsm.Timer;
import dev.sart.bgp.fsm.Transition;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Keepalive;
import dev.sart.bgp.wire.Message;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.Notification;
import dev.sart.bgp.wire.NotificationException;
import dev.sart.bgp.wire.Octets;
import dev.sart.bgp.wire.Open;
import dev.sart.bgp.wire.RouteRefresh;
import dev.sart.bgp.wire.SessionOptions;
import dev.sart.bgp.wire.Update;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One TCP connection and its FSM (RFC 4271 §8.2.1: one FSM per connection). A {@link Peer} has one
 * (its primary) and, while a collision is undecided, a second one; everything here runs on the
 * peer's event loop and reads or changes the peer's session state through {@link #peer}.
 */
final class Connection {
  /** The peer's logger: the log lines keep the name operators and tests filter on. */
  private static final Logger LOG = Logger.getLogger(Peer.class.getName());

  private final Peer peer;
  Session session;
  Channel channel;
  private boolean outgoing;
  BgpCodec codec = new BgpCodec(SessionOptions.DEFAULT);
  private BgpFrameDecoder decoder;
  private Open sentOpen;
  Negotiation negotiation;
  private Update pendingUpdate;
  private boolean pendingTreatAsWithdraw;
  private long blockedSinceNanos = -1;

  /** When our OPEN went out on this connection (System.nanoTime), for §6.8 on OpenSent. */
  private long openSentNanos;

  /** Read back-pressure: reading is paused while the RIB is behind. */
  private final ReadPause readPause;

  private final EnumMap<Timer, ScheduledFuture<?>> timers = new EnumMap<>(Timer.class);

  Connection(Peer peer, Session session, boolean outgoing) {
    this.readPause = new ReadPause(peer);
    this.peer = peer;
    this.session = session;
    this.outgoing = outgoing;
  }

  /** The event being handled (what {@link #release} looks at). */
  private Event handling;

  /** The NOTIFICATION sent or received while handling the outermost event, or null. */
  private Notification ending;

  /** RFC 8538 §2: both OPENs of {@link #negotiation} carried the N bit. */
  private boolean notificationRestart;

  Peer peer() {
    return peer;
  }

  void handle(Event e) {
    Event outer = handling;
    handling = e;
    try {
      step(e);
    } finally {
      handling = outer;
      if (outer == null) {
        ending = null;
      }
    }
  }

  private void step(Event e) {
    State before = session.state();
    Transition t = Fsm.step(peer.fsmConfig, session, e);
    session = t.next();
    for (Action a : t.actions()) {
      perform(a);
    }
    State after = session.state();
    if (this == peer.secondary && channel == null) {
      // the peer's second connection is gone (closed by either side, for the collision or an
      // error): what tracked it goes too. It is not a session of its own: left in Idle or Active it
      // restarted after its IdleHoldTimer or ConnectRetryTimer and connected to the peer beside the
      // session, and the peer's next connection was refused while it was "tracked"
      cancelTimers();
      peer.dropSecondary(this);
    }
    if (this == peer.primary) {
      if (before != after) {
        int failed = peer.failures.connectFailuresInARow;
        LOG.log(
            peer.failures.quietStateChange(before, after)
                ? java.util.logging.Level.FINE
                : java.util.logging.Level.INFO,
            () ->
                "peer="
                    + peer.name()
                    + " state="
                    + after
                    + " from="
                    + before
                    + " event="
                    + e.getClass().getSimpleName()
                    + (after == State.ESTABLISHED && failed > 0
                        ? " after-failed-connects=" + failed
                        : ""));
        if (after == State.ESTABLISHED) {
          peer.failures.resetFailureCounts();
        }
        peer.primaryStateChanged(before, after, negotiation);
      }
    }
  }

  private void perform(Action a) {
    switch (a) {
      case Action.ConnectTcp c -> connect();
      case Action.DropTcp d -> drop();
      case Action.InitializeResources i -> {}
      case Action.ReleaseResources r -> release();
      case Action.SendOpen s -> {
        sentOpen = peer.localOpen();
        openSentNanos = System.nanoTime();
        send(sentOpen);
        channel.flush();
      }
      case Action.SendKeepalive k -> {
        if (channel != null) {
          send(Keepalive.INSTANCE);
          channel.flush();
        }
      }
      case Action.SendNotification n -> {
        Notification notification =
            GracefulNotification.toSend(
                new Notification(n.code(), n.subcode(), octets(n.data())),
                negotiation != null && notificationRestart);
        ending = notification;
        peer.error("sent " + notification.describe());
        LOG.info(
            () ->
                "peer="
                    + peer.name()
                    + " event=notification-sent error=\""
                    + notification.describe()
                    + "\"");
        if (channel != null) {
          send(notification);
          channel.flush();
        }
      }
      case Action.StartTimer s -> startTimer(s.timer(), s.duration());
      case Action.StopTimer s -> stopTimer(s.timer());
      case Action.ProcessUpdate p -> process(pendingUpdate, pendingTreatAsWithdraw);
      case Action.SessionEstablished s -> established();
    }
  }

  void attach(Channel ch, boolean isOutgoing) {
    channel = ch;
    readPause.end();
    outgoing = isOutgoing;
    decoder = new BgpFrameDecoder(codec);
    ch.pipeline().addLast("bgp-decoder", decoder);
    ch.pipeline().addLast("bgp-peer", new PeerHandler(this, ch));
    // channels are created with auto-read off, so no byte arrives before the decoder is in place
    ch.config().setAutoRead(true);
  }

  private void connect() {
    io.netty.channel.ChannelFuture f =
        peer.speaker.connect(
            peer,
            new io.netty.channel.ChannelInitializer<>() {
              @Override
              protected void initChannel(Channel ch) {
                // the pipeline is set when the connection succeeds
              }
            });
    Channel ch = f.channel();
    channel = ch;
    outgoing = true;
    f.addListener(
        (ChannelFutureListener)
            future ->
                peer.loop.execute(
                    () -> {
                      if (channel != ch) {
                        future.channel().close();
                        return;
                      }
                      if (future.isSuccess()) {
                        attach(ch, true);
                        handle(new Event.TcpCrAcked());
                      } else {
                        channel = null;
                        // logged before the FSM moves, so that its Connect -> Active is quiet
                        peer.failures.connectFailed(
                            future.cause().getMessage() != null
                                ? future.cause().getMessage()
                                : future.cause().toString(),
                            peer.fsmConfig.connectRetryTimeAfter(session.connectFailures() + 1));
                        handle(new Event.TcpConnectionFails());
                      }
                    }));
  }

  private void drop() {
    Channel ch = channel;
    channel = null;
    if (ch != null) {
      if (ending != null && ch instanceof io.netty.channel.socket.DuplexChannel d) {
        NotificationClose.close(d);
      } else {
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
    }
    codec = new BgpCodec(SessionOptions.DEFAULT);
    sentOpen = null;
    blockedSinceNanos = -1;
    readPause.end();
  }

  private void release() {
    Negotiation was = negotiation;
    negotiation = null;
    if (this == peer.primary && peer.ribPeer != null) {
      // RFC 4724 §4.2: without a NOTIFICATION (either way) the peer may be restarting; RFC 8538
      // §4: with one too, when both sent the N bit, unless it is a Hard Reset
      boolean failed = handling instanceof Event.TcpConnectionFails;
      peer.sessionDown(
          was,
          failed
              || (ending != null && GracefulNotification.restarting(ending, notificationRestart)));
    }
  }

  /**
   * Closes the TCP connection without a NOTIFICATION and leaves the FSM where it is: the speaker
   * stops to start again (RFC 4724 §4.1), and to the peer this is how a restart ends a session
   * (§4.2). Its closing is no event: nothing runs here afterwards, the process ends.
   */
  void closeForRestart() {
    cancelTimers();
    Channel ch = channel;
    channel = null;
    if (ch != null) {
      ch.close();
    }
  }

  /** Whether we opened this connection. */
  boolean outgoing() {
    return outgoing;
  }

  void cancelTimers() {
    timers.values().forEach(f -> f.cancel(false));
    timers.clear();
  }

  /**
   * RFC 4271 §10: "jitter SHOULD be applied to the timers associated with [...] KeepAlive [...] and
   * ConnectRetry", each value multiplied by a random factor from 0.75 to 1.0 ({@code random} in [0,
   * 1)), so that speakers that started together do not keep connecting, or sending, in step. The
   * others run as given.
   */
  static Duration jittered(Timer timer, Duration d, double random) {
    return timer == Timer.CONNECT_RETRY || timer == Timer.KEEPALIVE
        ? Duration.ofNanos((long) (d.toNanos() * (0.75 + 0.25 * random)))
        : d;
  }

  private void startTimer(Timer timer, Duration given) {
    stopTimer(timer);
    Duration d =
        jittered(timer, given, java.util.concurrent.ThreadLocalRandom.current().nextDouble());
    if (timer == Timer.HOLD) {
      // a new hold period: count only the pauses within it
      readPause.holdPeriodStarted();
    }
    ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
    self[0] =
        peer.loop.schedule(
            () -> {
              if (timers.get(timer) == self[0]) {
                timers.remove(timer);
                timerExpired(timer, d);
              }
            },
            Math.max(1, d.toMillis()),
            TimeUnit.MILLISECONDS);
    timers.put(timer, self[0]);
  }

  private void stopTimer(Timer timer) {
    ScheduledFuture<?> f = timers.remove(timer);
    if (f != null) {
      f.cancel(false);
    }
  }

  private void timerExpired(Timer timer, Duration d) {
    switch (timer) {
      case CONNECT_RETRY -> {
        if (session.state() == State.CONNECT && this == peer.primary) {
          peer.failures.connectFailed(
              "no answer within " + d.toMillis() + "ms",
              peer.fsmConfig.connectRetryTimeAfter(session.connectFailures() + 1));
        }
        handle(new Event.ConnectRetryTimerExpires());
      }
      case HOLD -> {
        long paused = readPause.pausedNanos();
        if (paused >= TimeUnit.MILLISECONDS.toNanos(1)) {
          // the time we did not read does not count (see ReadPause): what is left of the
          // hold time is the time we were paused
          startTimer(Timer.HOLD, Duration.ofNanos(paused));
        } else {
          handle(new Event.HoldTimerExpires());
        }
      }
      case KEEPALIVE -> handle(new Event.KeepaliveTimerExpires());
      case DELAY_OPEN -> handle(new Event.DelayOpenTimerExpires());
      case IDLE_HOLD -> handle(new Event.IdleHoldTimerExpires());
      case STABLE -> handle(new Event.StableTimerExpires());
      case SEND_HOLD -> {
        // RFC 9687 §3: expire only when nothing could be sent for the whole SendHoldTime
        long blocked = blockedSinceNanos;
        if (channel != null && blocked >= 0 && System.nanoTime() - blocked >= d.toNanos()) {
          handle(new Event.SendHoldTimerExpires());
        } else {
          startTimer(Timer.SEND_HOLD, d);
        }
      }
    }
  }

  void send(Message m) {
    count(m, peer.sent);
    channel.write(Unpooled.wrappedBuffer(codec.encode(m)));
  }

  /** Sends an UPDATE encoded already (by an update group). */
  void sendUpdate(byte[] update) {
    int type = Iana.MessageType.UPDATE;
    peer.sent.setRelease(type, peer.sent.getPlain(type) + 1);
    channel.write(Unpooled.wrappedBuffer(update));
  }

  private void count(Message m, java.util.concurrent.atomic.AtomicLongArray counters) {
    int type = m.type();
    if (type > 0 && type < counters.length()) {
      counters.setRelease(type, counters.getPlain(type) + 1); // one writer: the peer's loop
    }
  }

  /** A decoded message (or a decoding failure) from {@code ch}; on the peer's loop. */
  private void onMessage(Channel ch, Object msg) {
    if (ch != channel) {
      return; // from a connection we already dropped
    }
    if (msg instanceof BgpFrameDecoder.Malformed m) {
      NotificationException e = m.error();
      peer.error("received malformed message: " + e.getMessage());
      handle(ReceiveErrors.of(e).event());
      return;
    }
    Message message = (Message) msg;
    count(message, peer.received);
    switch (message) {
      case Open o -> onOpen(o);
      case Update u -> onUpdate(u);
      case Keepalive k -> handle(new Event.KeepAliveMsg());
      case Notification n -> {
        // RFC 9003 §2: a Shutdown Communication says why, in the operator's words; shown as
        // received, but printable and without quotes (it is free text from the peer)
        String why =
            n.shutdownCommunication()
                .map(c -> " \"" + c.replaceAll("[\\p{Cntrl}\"\\\\]", "?") + "\"")
                .orElse("");
        peer.error("received " + n.describe() + why);
        LOG.info(
            () ->
                "peer="
                    + peer.name()
                    + " event=notification-received error=\""
                    + n.describe()
                    + "\""
                    + (why.isEmpty() ? "" : " communication=" + why.strip()));
        ending = n;
        handle(
            n.code() == Iana.ErrorCode.OPEN_MESSAGE
                    && n.subcode() == Iana.ErrorSubcode.UNSUPPORTED_VERSION_NUMBER
                ? new Event.NotifMsgVerErr()
                : n.code() == Iana.ErrorCode.CEASE
                        && n.subcode() == Iana.ErrorSubcode.CONNECTION_REJECTED
                    ? new Event.ConnectionRejected()
                    : new Event.NotifMsg());
      }
      case RouteRefresh r -> onRouteRefresh(r);
    }
  }

  private void onOpen(Open o) {
    Open ours = sentOpen != null ? sentOpen : peer.localOpen();
    Negotiation n;
    try {
      n =
          OpenCheck.check(
              ours,
              o,
              FabricCapabilities.expectedPeerAs(peer.config, o, peer.speaker.localAs()),
              peer.speaker.localAs(),
              peer.config.keepaliveTime());
    } catch (NotificationException e) {
      handle(ReceiveErrors.of(e).event());
      return;
    }
    if (!Collisions.resolve(peer, this, n)) {
      return;
    }
    negotiation = n;
    notificationRestart = GracefulNotification.negotiated(ours, o);
    codec = new BgpCodec(n.options());
    decoder.codec(codec);
    handle(new Event.BgpOpen(n.fsm()));
  }

  /**
   * This connection, in OpenSent, gives up waiting for the peer's OPEN after {@code hold} rather
   * than the large value of RFC 4271 §8.2.2 (4 minutes): the HoldTimer is started again with it,
   * and its expiry is Hold Timer Expired (event 10) as ever. A zero hold time (none negotiated), or
   * one longer than the large value, leaves the timer as it is.
   */
  void awaitOpenWithin(Duration hold) {
    if (session.state() == State.OPEN_SENT
        && !hold.isZero()
        && hold.compareTo(peer.fsmConfig.largeHoldTime()) < 0
        && timers.containsKey(Timer.HOLD)) {
      startTimer(Timer.HOLD, hold);
    }
  }

  /**
   * Whether our OPEN on this connection has had no answer for longer than the hold time we offer
   * (90 s when we offer none).
   */
  boolean silentLongerThanHold() {
    Duration hold = peer.config.holdTime();
    long wait = (hold.isZero() ? Duration.ofSeconds(90) : hold).toNanos();
    return sentOpen != null && System.nanoTime() - openSentNanos > wait;
  }

  private void onUpdate(Update u) {
    ReceiveErrors.Outcome o = ReceiveErrors.of(u);
    pendingUpdate = u;
    pendingTreatAsWithdraw = o.treatAsWithdraw();
    handle(o.event()); // UpdateMsg processes pendingUpdate; UpdateMsgErr resets the session
    pendingUpdate = null;
  }

  /**
   * RFC 2918 §4: a request is answered with the Adj-RIB-Out of its family; with enhanced route
   * refresh (RFC 7313 §4) between a BoRR, sent before any of the routes, and an EoRR after them
   * (see {@link #drain}). A request for a family not negotiated is ignored (RFC 2918 §4). The
   * peer's BoRR marks its routes of the family stale, its EoRR removes those it did not send again
   * (RFC 7313 §4); other subtypes are ignored (RFC 7313 §5).
   */
  private void onRouteRefresh(RouteRefresh r) {
    if (session.state() != State.ESTABLISHED
        || peer.ribPeer == null
        || this != peer.primary
        || !peer.ribPeer.families().contains(r.family())) {
      return;
    }
    if (r.subtype() != Iana.RouteRefreshSubtype.NORMAL) {
      if (negotiation.enhancedRouteRefresh()) {
        if (r.subtype() == Iana.RouteRefreshSubtype.BEGINNING_OF_ROUTE_REFRESH) {
          peer.speaker.rib().beginningOfRefresh(peer.ribPeer, r.family());
        } else if (r.subtype() == Iana.RouteRefreshSubtype.END_OF_ROUTE_REFRESH) {
          peer.speaker.rib().endOfRefresh(peer.ribPeer, r.family());
        }
      }
      return;
    }
    boolean enhanced = negotiation.enhancedRouteRefresh();
    if (enhanced) {
      send(RouteRefresh.beginning(r.family()));
      channel.flush();
    }
    LOG.fine(() -> "peer=" + peer.name() + " event=route-refresh-received family=" + r.family());
    peer.grouping.leave(
        peer.ribPeer, "route refresh"); // the others are not to get the routes again
    peer.speaker.rib().resend(peer.ribPeer, r.family(), enhanced);
  }

  private void process(Update u, boolean treatAsWithdraw) {
    RibPeer rp = peer.ribPeer;
    if (u == null || rp == null) {
      return;
    }
    ReceivedUpdate.apply(u, treatAsWithdraw, rp, negotiation.options(), peer.speaker.rib());
    // End-of-RIB: after the UPDATEs before it, in the RIB
    if (peer.helper.session != null) {
      u.endOfRibFamily().ifPresent(peer.helper::endOfRib); // RFC 4724 §4.2: the peer restarted
    }
    RestartingSpeaker restart = peer.speaker.restart();
    if (restart != null && !restart.complete()) {
      u.endOfRibFamily().ifPresent(peer.restartSync::endOfRib); // §4.1: we restarted
    }
    if (peer.speaker.rib().overHighWater()) {
      readPause.pause(channel);
    }
  }

  private void established() {
    if (this == peer.secondary) {
      // RFC 4271 §6.8: the other connection went away before this one's OPEN could collide with
      // it (the peer closed it for its own collision resolution): this connection is the session
      Connection old = peer.primary;
      peer.promote(this);
      if (old.channel != null) {
        old.handle(new Event.OpenCollisionDump());
      }
      old.cancelTimers();
    }
    Negotiation n = negotiation;
    InetSocketAddress local = (InetSocketAddress) channel.localAddress();
    MpNextHop v4 = null;
    MpNextHop v6 = null;
    if (local.getAddress() instanceof Inet4Address a) {
      v4 = new MpNextHop.V4(Ip.parseV4(a.getHostAddress()));
    } else if (local.getAddress() instanceof Inet6Address a) {
      long[] g = Ip.parseV6(a.getHostAddress().replaceFirst("%.*$", ""));
      v6 = new MpNextHop.V6(g[0], g[1]);
      // RFC 2545 §3 / RFC 8950: a link-local session (unnumbered) sends its link-local address
      v6 = FabricCapabilities.linkLocal(a, v6);
      // RFC 8950 §4: IPv4 NLRI with our IPv6 address as next hop once negotiated
      v4 = FabricCapabilities.ipv4NextHop(n, v4, v6);
    }
    peer.sessionUp(n, v4, v6);
  }

  private void channelInactive(Channel ch, String cause) {
    if (ch == channel) {
      channel = null;
      State st = session.state();
      if (this == peer.primary
          && (st == State.OPEN_SENT || st == State.OPEN_CONFIRM || st == State.ESTABLISHED)) {
        // a NOTIFICATION received or sent drops the channel first: this close came without one
        peer.error(
            "connection closed without a NOTIFICATION in "
                + st
                + (cause == null ? "" : " (" + cause + ")"));
      }
      handle(new Event.TcpConnectionFails());
    }
  }

  private void writabilityChanged(Channel ch) {
    if (ch != channel) {
      return;
    }
    if (ch.isWritable()) {
      blockedSinceNanos = -1;
      peer.drain();
    } else if (blockedSinceNanos < 0) {
      blockedSinceNanos = System.nanoTime();
    }
  }

  /** The graceful restart capability of an OPEN (RFC 4724 §3), or null. */
  static Capability.GracefulRestart gracefulRestart(Open o) {
    for (Capability c : o.capabilities()) {
      if (c instanceof Capability.GracefulRestart g) {
        return g;
      }
    }
    return null;
  }

  private static Octets octets(ByteBuffer b) {
    ByteBuffer d = b.duplicate();
    byte[] bytes = new byte[d.remaining()];
    d.get(bytes);
    return Octets.of(bytes);
  }

  /** Netty glue: hands a channel's events to its connection on the peer's loop. */
  private final class PeerHandler extends io.netty.channel.ChannelInboundHandlerAdapter {
    private final Connection connection;
    private final Channel ch;

    PeerHandler(Connection connection, Channel ch) {
      this.connection = connection;
      this.ch = ch;
    }

    @Override
    public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
      run(() -> connection.onMessage(ch, msg));
    }

    /** What Netty last reported failing on the channel ("Connection reset by peer"), or null. */
    private volatile String cause;

    @Override
    public void channelInactive(io.netty.channel.ChannelHandlerContext ctx) {
      String why = cause;
      run(() -> connection.channelInactive(ch, why));
    }

    @Override
    public void channelWritabilityChanged(io.netty.channel.ChannelHandlerContext ctx) {
      run(() -> connection.writabilityChanged(ch));
    }

    @Override
    public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
      LOG.fine(
          () ->
              "peer=" + peer.name() + " event=channel-error cause=\"" + cause.getMessage() + "\"");
      this.cause = cause.getMessage() != null ? cause.getMessage() : cause.toString();
      ctx.close();
    }

    private void run(Runnable r) {
      if (peer.loop.inEventLoop()) {
        r.run();
      } else {
        peer.loop.execute(r);
      }
    }
  }
}
