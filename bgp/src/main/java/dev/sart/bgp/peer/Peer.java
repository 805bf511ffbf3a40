package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Action;
import dev.sart.bgp.fsm.Event;
import dev.sart.bgp.fsm.Fsm;
import dev.sart.bgp.fsm.FsmConfig;
import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.fsm.OpenCheck;
import dev.sart.bgp.fsm.Session;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.fsm.Timer;
import dev.sart.bgp.fsm.Transition;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.rib.AdjRibOut;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.ErrorNames;
import dev.sart.bgp.wire.Family;
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
import io.netty.channel.EventLoop;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One configured neighbour: drives its FSM ({@link Fsm}) on one Netty event loop, performs the
 * FSM's actions on the TCP connection(s), resolves connection collisions (RFC 4271 §6.8), feeds
 * received UPDATEs to the RIB and drains its Adj-RIB-Out into UPDATEs while the channel is
 * writable. Every method that touches state runs on {@link #loop}.
 */
public final class Peer {
  private static final Logger LOG = Logger.getLogger(Peer.class.getName());
  private static final int DRAIN_CHUNK = 2048;
  /** Chunks per drain task: then the task queues itself again, so timers and reads run in between. */
  private static final int DRAIN_ROUNDS = 4;
  /** The longest a connection stops reading for the RIB before it reads again (see {@code pauseReading}). */
  static final Duration MAX_READ_PAUSE = Duration.ofSeconds(5);

  /** What a peer needs from the speaker that owns it. */
  public interface Speaker {
    long localAs();

    int routerId();

    Rib rib();

    /** Opens an outgoing connection for this peer (with its TTL, MD5 and local address). */
    io.netty.channel.ChannelFuture connect(Peer peer, io.netty.channel.ChannelInitializer<Channel> initializer);

    void stateChanged(Peer peer, State from, State to);
  }

  final PeerConfig config;
  private final Speaker speaker;
  final EventLoop loop;
  private final FsmConfig fsmConfig;
  private Connection primary;
  private Connection secondary;
  private RibPeer ribPeer;
  private int ribPeerIds;
  // read from other threads (API)
  // written on the loop, read by the API: no snapshot object is built per message
  private volatile State state = State.IDLE;
  private volatile Negotiation negotiated;
  private final java.util.concurrent.atomic.AtomicLongArray sent = new java.util.concurrent.atomic.AtomicLongArray(6);
  private final java.util.concurrent.atomic.AtomicLongArray received =
      new java.util.concurrent.atomic.AtomicLongArray(6);
  private volatile long flaps;
  private volatile String lastError;
  private volatile Instant establishedSince;
  private final dev.sart.bgp.rib.PrefixCounters prefixCounters = new dev.sart.bgp.rib.PrefixCounters();
  private volatile PeerPolicy policy = PeerPolicy.NONE;

  public Peer(PeerConfig config, Speaker speaker, EventLoop loop, int ribPeerId) {
    this.config = config;
    this.speaker = speaker;
    this.loop = loop;
    this.ribPeerIds = ribPeerId;
    this.fsmConfig = FsmConfig.defaults().withConnectRetryTime(config.connectRetryTime()).withPassive(config.passive())
        .withIdleHoldTime(Duration.ofSeconds(1), Duration.ofMinutes(2));
    this.primary = new Connection(Session.initial(fsmConfig), false);
  }

  public PeerConfig config() {
    return config;
  }

  /** The event loop the peer's FSM runs on (its outgoing connections are made on it too). */
  public EventLoop loop() {
    return loop;
  }

  /** A snapshot for the API and metrics (any thread). */
  public PeerStatus status() {
    Negotiation n = negotiated;
    return new PeerStatus(state, establishedSince, n == null ? 0 : n.peerId(),
        n == null ? config.holdTime() : n.fsm().holdTime(),
        n == null ? (config.keepaliveTime() != null ? config.keepaliveTime() : config.holdTime().dividedBy(3))
            : n.fsm().keepaliveTime(),
        n == null ? config.families() : n.families(), copy(sent), copy(received), flaps, lastError);
  }

  /** Prefixes received from, accepted from and advertised to this peer (any thread). */
  public dev.sart.bgp.rib.PrefixCounters prefixCounters() {
    return prefixCounters;
  }

  private static long[] copy(java.util.concurrent.atomic.AtomicLongArray a) {
    long[] c = new long[a.length()];
    for (int i = 0; i < c.length; i++) {
      c[i] = a.getAcquire(i);
    }
    return c;
  }

  /** The import/export policies, prefix limit and soft reconfiguration of this neighbour. */
  public PeerPolicy policy() {
    return policy;
  }

  /**
   * Changes the policies; an Established session applies them at once. A changed import policy
   * re-evaluates the routes as received when they are kept (soft reconfiguration inbound);
   * otherwise the peer is asked to send them again (ROUTE-REFRESH, RFC 2918 §3), if it can.
   */
  public void setPolicy(PeerPolicy p) {
    java.util.Objects.requireNonNull(p, "policy (PeerPolicy.NONE for none)");
    PeerPolicy old;
    synchronized (this) {
      old = policy;
      policy = p;
    }
    loop.execute(() -> {
      if (ribPeer == null) {
        return;
      }
      speaker.rib().setPolicy(ribPeer, p);
      boolean kept = old.softReconfigurationInbound() && p.softReconfigurationInbound();
      if ((!kept && !old.importPolicy().equals(p.importPolicy()))
          || (p.softReconfigurationInbound() && !old.softReconfigurationInbound())) {
        requestRouteRefresh();
      }
    });
  }

  /**
   * The RIB counted more accepted prefixes than the limit (on the RIB thread): RFC 4486 §4 Cease /
   * Maximum Number of Prefixes Reached, with AFI, SAFI and the upper bound as data. The session
   * stays in Idle until the restart timer (if any) fires (RFC 4271 §8.1.2 event 8).
   */
  private void maxPrefixExceeded(RibPeer rp, Family family, long accepted, MaxPrefix limit) {
    loop.execute(() -> {
      if (ribPeer != rp) {
        return; // that session is gone already
      }
      ByteBuffer data = ByteBuffer.allocate(7).putShort((short) family.afi()).put((byte) family.safi())
          .putInt((int) limit.limit()).flip();
      LOG.info(() -> "peer=" + name() + " event=max-prefix family=" + family + " accepted=" + accepted
          + " limit=" + limit.limit() + " restart=" + (limit.restart() == null ? "never" : limit.restart()));
      primary.handle(new Event.AutomaticStop(Iana.ErrorSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED, data,
          limit.restart() != null, limit.restart()));
    });
  }

  /** ManualStart (or its passive variant): RFC 4271 §8.1.2 events 1 and 4. */
  public void start() {
    loop.execute(() -> primary.handle(config.passive() ? new Event.ManualStartWithPassiveTcpEstablishment()
        : new Event.ManualStart()));
  }

  /** ManualStop: Cease to the peer, routes withdrawn; completes when the connection is closed. */
  public CompletableFuture<Void> stop() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(() -> {
      List<Channel> channels = new ArrayList<>();
      for (Connection c : new Connection[] {primary, secondary}) {
        if (c != null) {
          if (c.channel != null) {
            channels.add(c.channel);
          }
          c.handle(new Event.ManualStop());
          c.cancelTimers();
        }
      }
      secondary = null;
      CompletableFuture.allOf(channels.stream().map(ch -> {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ch.closeFuture().addListener(x -> f.complete(null));
        return f;
      }).toArray(CompletableFuture[]::new)).whenComplete((v, e) -> done.complete(null));
    });
    return done;
  }

  /** The RIB's view of the session while it is Established (for Adj-RIB-In queries), else null. */
  public CompletableFuture<RibPeer> ribPeer() {
    CompletableFuture<RibPeer> f = new CompletableFuture<>();
    loop.execute(() -> f.complete(ribPeer));
    return f;
  }

  /** What is advertised to the peer now (its Adj-RIB-Out as sent). */
  public CompletableFuture<java.util.Map<dev.sart.bgp.rib.Prefix, dev.sart.bgp.rib.Attrs>> advertised() {
    CompletableFuture<java.util.Map<dev.sart.bgp.rib.Prefix, dev.sart.bgp.rib.Attrs>> f = new CompletableFuture<>();
    loop.execute(() -> f.complete(ribPeer == null ? java.util.Map.of() : ribPeer.out().advertisedSnapshot()));
    return f;
  }

  /** Asks the peer to send its routes again (RFC 2918), for every negotiated family. */
  public void requestRouteRefresh() {
    loop.execute(() -> {
      Connection c = primary;
      if (c.session.state() == State.ESTABLISHED && c.negotiation != null && c.negotiation.routeRefresh()) {
        for (Family f : c.negotiation.families()) {
          c.send(RouteRefresh.request(f));
        }
        c.channel.flush();
      }
    });
  }

  /** Sends the peer everything again (soft reset out). */
  public void resendAdjRibOut() {
    loop.execute(() -> {
      if (ribPeer != null) {
        speaker.rib().resend(ribPeer);
      }
    });
  }

  /** An accepted TCP connection from this peer's address (called on any thread). */
  public void accept(Channel ch) {
    loop.execute(() -> {
      if (primary.session.acceptsConnection()) {
        if (primary.channel != null) {
          primary.channel.close(); // our own connect attempt loses to the established TCP connection
        }
        primary.attach(ch, false);
        primary.handle(new Event.TcpConnectionConfirmed());
      } else if (secondary == null
          && (primary.session.state() == State.OPEN_SENT || primary.session.state() == State.OPEN_CONFIRM)) {
        // RFC 4271 §6.8: track the second connection until its OPEN decides which one stays
        Session s = new Session(State.ACTIVE, 0, false, fsmConfig.idleHoldTime(), true, null);
        secondary = new Connection(s, false);
        secondary.attach(ch, false);
        secondary.handle(new Event.TcpConnectionConfirmed());
      } else {
        LOG.fine(() -> "peer=" + name() + " event=connection-refused state=" + primary.session.state());
        ch.close();
      }
    });
  }

  private String name() {
    return config.address().getHostAddress();
  }

  /** The OPEN we send: our AS (AS_TRANS when it needs 4 octets), hold time, identifier and capabilities. */
  private Open localOpen() {
    List<Capability> caps = new ArrayList<>();
    for (Family f : config.families()) {
      caps.add(new Capability.Multiprotocol(f));
    }
    caps.add(new Capability.RouteRefresh());
    caps.add(Capability.EnhancedRouteRefresh.INSTANCE); // RFC 7313 §3
    // RFC 4724 §3: with no <AFI, SAFI>, we keep no forwarding state across a restart but send and
    // understand End-of-RIB. FRR sends End-of-RIB only to peers with this capability, and ignores
    // their ROUTE-REFRESH until it has ("rcvd route-refresh before EoR"), so without it our
    // requests would never be answered.
    caps.add(new Capability.GracefulRestart(0, 0, List.of()));
    caps.add(new Capability.FourOctetAs(speaker.localAs()));
    return Open.of(speaker.localAs(), (int) config.holdTime().toSeconds(), speaker.routerId(), caps);
  }

  /** Drains the Adj-RIB-Out into UPDATEs while the channel takes them (back-pressure: stop when not writable). */
  private void drain() {
    Connection c = primary;
    RibPeer rp = ribPeer;
    if (rp == null || c.channel == null || c.session.state() != State.ESTABLISHED) {
      return;
    }
    List<Family> families = List.copyOf(rp.families());
    int rounds = 0;
    while (c.channel.isWritable() && rounds++ < DRAIN_ROUNDS) {
      AdjRibOut.Batch batch = rp.out().drain(DRAIN_CHUNK, rp.families());
      if (batch.isEmpty()) {
        break;
      }
      for (Update u : UpdatePacker.pack(batch, c.codec, families)) {
        c.send(u);
      }
    }
    // RFC 7313 §4: the EoRR follows the routes of the refresh, once they are all out
    for (Family f : rp.out().takeEndOfRefresh()) {
      c.send(RouteRefresh.end(f));
    }
    c.channel.flush();
    if (rp.out().hasPending() && c.channel.isWritable()) {
      drainLater();
    }
  }

  /**
   * Drains again after the loop has served its sockets. Netty 4.2 runs queued tasks for up to
   * {@code io.netty.eventLoop.maxTaskProcessingQuantumMs} (1 s) before it looks at I/O again, so a
   * drain that re-queued itself with {@code execute} kept OPENs, KEEPALIVEs and reads of every
   * channel of the loop waiting that long while there was a table to send; a scheduled task is
   * taken only at the start of the next round, after I/O.
   */
  private void drainLater() {
    loop.schedule(this::drain, 0, TimeUnit.NANOSECONDS);
  }

  /** One TCP connection and its FSM (RFC 4271 §8.2.1: one FSM per connection). */
  private final class Connection {
    Session session;
    Channel channel;
    boolean outgoing;
    BgpCodec codec = new BgpCodec(SessionOptions.DEFAULT);
    BgpFrameDecoder decoder;
    Open sentOpen;
    Negotiation negotiation;
    Update pendingUpdate;
    boolean pendingTreatAsWithdraw;
    long blockedSinceNanos = -1;
    // read back-pressure: reading is paused while the RIB is behind (see pauseReading)
    boolean readPaused;
    long pausedSinceNanos;
    /** Time reading was paused since the hold timer was last started. */
    long pausedNanos;
    ScheduledFuture<?> pauseCap;
    final EnumMap<Timer, ScheduledFuture<?>> timers = new EnumMap<>(Timer.class);

    Connection(Session session, boolean outgoing) {
      this.session = session;
      this.outgoing = outgoing;
    }

    void handle(Event e) {
      State before = session.state();
      Transition t = Fsm.step(fsmConfig, session, e);
      session = t.next();
      for (Action a : t.actions()) {
        perform(a);
      }
      State after = session.state();
      if (this == primary) {
        if (before != after) {
          LOG.info(() -> "peer=" + name() + " state=" + after + " from=" + before + " event=" + e.getClass().getSimpleName());
          if (before == State.ESTABLISHED) {
            flaps++;
            establishedSince = null;
          }
          negotiated = negotiation;
          state = after;
          speaker.stateChanged(Peer.this, before, after);
        }
      }
    }

    private void perform(Action a) {
      switch (a) {
        case Action.ConnectTcp c -> connect();
        case Action.DropTcp d -> drop();
        case Action.InitializeResources i -> { }
        case Action.ReleaseResources r -> release();
        case Action.SendOpen s -> {
          sentOpen = localOpen();
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
          Notification notification = new Notification(n.code(), n.subcode(), octets(n.data()));
          lastError = "sent " + ErrorNames.describe(n.code(), n.subcode());
          LOG.info(() -> "peer=" + name() + " event=notification-sent error=\"" + ErrorNames.describe(n.code(), n.subcode()) + "\"");
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
      endPause();
      outgoing = isOutgoing;
      decoder = new BgpFrameDecoder(codec);
      ch.pipeline().addLast("bgp-decoder", decoder);
      ch.pipeline().addLast("bgp-peer", new PeerHandler(this, ch));
      // channels are created with auto-read off, so no byte arrives before the decoder is in place
      ch.config().setAutoRead(true);
    }

    private void connect() {
      io.netty.channel.ChannelFuture f = speaker.connect(Peer.this, new io.netty.channel.ChannelInitializer<>() {
        @Override
        protected void initChannel(Channel ch) {
          // the pipeline is set when the connection succeeds
        }
      });
      Channel ch = f.channel();
      channel = ch;
      outgoing = true;
      f.addListener((ChannelFutureListener) future -> loop.execute(() -> {
        if (channel != ch) {
          future.channel().close();
          return;
        }
        if (future.isSuccess()) {
          attach(ch, true);
          handle(new Event.TcpCrAcked());
        } else {
          channel = null;
          LOG.fine(() -> "peer=" + name() + " event=connect-failed cause=\"" + future.cause().getMessage() + "\"");
          handle(new Event.TcpConnectionFails());
        }
      }));
    }

    private void drop() {
      Channel ch = channel;
      channel = null;
      if (ch != null) {
        // flush what is queued (a NOTIFICATION) before closing
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
      codec = new BgpCodec(SessionOptions.DEFAULT);
      sentOpen = null;
      blockedSinceNanos = -1;
      endPause();
    }

    private void release() {
      negotiation = null;
      if (this == primary && ribPeer != null) {
        speaker.rib().peerDown(ribPeer);
        ribPeer = null;
        prefixCounters.clearAdvertised();
      }
    }

    void cancelTimers() {
      timers.values().forEach(f -> f.cancel(false));
      timers.clear();
    }

    private void startTimer(Timer timer, Duration d) {
      stopTimer(timer);
      if (timer == Timer.HOLD) {
        // a new hold period: count only the pauses within it
        pausedNanos = 0;
        pausedSinceNanos = System.nanoTime();
      }
      ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
      self[0] = loop.schedule(() -> {
        if (timers.get(timer) == self[0]) {
          timers.remove(timer);
          timerExpired(timer, d);
        }
      }, Math.max(1, d.toMillis()), TimeUnit.MILLISECONDS);
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
        case CONNECT_RETRY -> handle(new Event.ConnectRetryTimerExpires());
        case HOLD -> {
          long paused = pausedNanos + (readPaused ? System.nanoTime() - pausedSinceNanos : 0);
          if (paused >= TimeUnit.MILLISECONDS.toNanos(1)) {
            // the time we did not read does not count (see pauseReading): what is left of the
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
      count(m, sent);
      channel.write(Unpooled.wrappedBuffer(codec.encode(m)));
    }

    private void count(Message m, java.util.concurrent.atomic.AtomicLongArray counters) {
      int type = m.type();
      if (type > 0 && type < counters.length()) {
        counters.setRelease(type, counters.getPlain(type) + 1); // one writer: the peer's loop
      }
    }

    /** A decoded message (or a decoding failure) from {@code ch}; on the peer's loop. */
    void onMessage(Channel ch, Object msg) {
      if (ch != channel) {
        return; // from a connection we already dropped
      }
      if (msg instanceof BgpFrameDecoder.Malformed m) {
        NotificationException e = m.error();
        lastError = "received malformed message: " + e.getMessage();
        ByteBuffer data = ByteBuffer.wrap(e.data().toByteArray());
        handle(switch (e.code()) {
          case Iana.ErrorCode.OPEN_MESSAGE -> new Event.BgpOpenMsgErr(e.code(), e.subcode(), data);
          case Iana.ErrorCode.UPDATE_MESSAGE -> new Event.UpdateMsgErr(e.code(), e.subcode(), data);
          default -> new Event.BgpHeaderErr(e.code(), e.subcode(), data);
        });
        return;
      }
      Message message = (Message) msg;
      count(message, received);
      switch (message) {
        case Open o -> onOpen(o);
        case Update u -> onUpdate(u);
        case Keepalive k -> handle(new Event.KeepAliveMsg());
        case Notification n -> {
          lastError = "received " + ErrorNames.describe(n.code(), n.subcode());
          LOG.info(() -> "peer=" + name() + " event=notification-received error=\"" + ErrorNames.describe(n.code(), n.subcode()) + "\"");
          handle(n.code() == Iana.ErrorCode.OPEN_MESSAGE && n.subcode() == Iana.ErrorSubcode.UNSUPPORTED_VERSION_NUMBER
              ? new Event.NotifMsgVerErr() : new Event.NotifMsg());
        }
        case RouteRefresh r -> onRouteRefresh(r);
      }
    }

    private void onOpen(Open o) {
      Open ours = sentOpen != null ? sentOpen : localOpen();
      Negotiation n;
      try {
        n = OpenCheck.check(ours, o, config.asn(), speaker.localAs(), config.keepaliveTime());
      } catch (NotificationException e) {
        handle(new Event.BgpOpenMsgErr(e.code(), e.subcode(), ByteBuffer.wrap(e.data().toByteArray())));
        return;
      }
      // RFC 4271 §6.8: connection collision detection
      Connection other = this == primary ? secondary : primary;
      if (other != null) {
        State os = other.session.state();
        Connection loser = null;
        boolean replaced = false;
        if (os == State.ESTABLISHED && other.channel != null) {
          loser = this;
        } else if ((os == State.OPEN_SENT || os == State.OPEN_CONFIRM) && other.channel != null) {
          boolean keepIncoming = Integer.compareUnsigned(speaker.routerId(), n.peerId()) < 0;
          loser = keepIncoming ? (outgoing ? this : other) : (outgoing ? other : this);
        } else if (this == secondary) {
          // no collision with a connection in Idle, Connect or Active: the primary's attempt failed
          // meanwhile, so this connection carries the session (it would otherwise become
          // Established unseen, while the primary kept retrying)
          loser = other;
          replaced = true;
        }
        if (loser != null) {
          Connection l = loser;
          String event = replaced ? "connection-replaced" : "collision";
          LOG.info(() -> "peer=" + name() + " event=" + event + " closing=" + (l.outgoing ? "outgoing" : "incoming"));
          l.handle(new Event.OpenCollisionDump());
          l.cancelTimers();
          if (l == this) {
            if (this == secondary) {
              secondary = null;
            } else {
              // the primary lost on its own OPEN: the second connection carries the session, and
              // the peer's state is its state (left as the secondary, the peer said Idle meanwhile)
              primary = other;
              secondary = null;
              State was = state;
              State now = other.session.state();
              if (was != now) {
                LOG.info(() -> "peer=" + name() + " state=" + now + " from=" + was + " event=connection-kept");
                state = now;
                speaker.stateChanged(Peer.this, was, now);
              }
            }
            return;
          }
          // the primary lost: the second connection takes its place
          primary = this;
          secondary = null;
        }
      }
      negotiation = n;
      codec = new BgpCodec(n.options());
      decoder.codec(codec);
      handle(new Event.BgpOpen(n.fsm()));
    }

    private void onUpdate(Update u) {
      UpdateErrorVerdict v = UpdateErrorVerdict.of(u);
      if (v.reset() != null) {
        Notification n = v.reset();
        handle(new Event.UpdateMsgErr(n.code(), n.subcode(), ByteBuffer.wrap(n.data().toByteArray())));
        return;
      }
      pendingUpdate = u;
      pendingTreatAsWithdraw = v.treatAsWithdraw();
      handle(new Event.UpdateMsg());
      pendingUpdate = null;
    }

    /**
     * RFC 2918 §4: a request is answered with the Adj-RIB-Out of its family; with enhanced route
     * refresh (RFC 7313 §4) between a BoRR, sent before any of the routes, and an EoRR after them
     * (see {@link #drain}). A request for a family not negotiated is ignored (RFC 2918 §4). The
     * peer's BoRR marks its routes of the family stale, its EoRR removes those it did not send
     * again (RFC 7313 §4); other subtypes are ignored (RFC 7313 §5).
     */
    private void onRouteRefresh(RouteRefresh r) {
      if (session.state() != State.ESTABLISHED || ribPeer == null || this != primary
          || !ribPeer.families().contains(r.family())) {
        return;
      }
      if (r.subtype() != Iana.RouteRefreshSubtype.NORMAL) {
        if (negotiation.enhancedRouteRefresh()) {
          if (r.subtype() == Iana.RouteRefreshSubtype.BEGINNING_OF_ROUTE_REFRESH) {
            speaker.rib().beginningOfRefresh(ribPeer, r.family());
          } else if (r.subtype() == Iana.RouteRefreshSubtype.END_OF_ROUTE_REFRESH) {
            speaker.rib().endOfRefresh(ribPeer, r.family());
          }
        }
        return;
      }
      boolean enhanced = negotiation.enhancedRouteRefresh();
      if (enhanced) {
        send(RouteRefresh.beginning(r.family()));
        channel.flush();
      }
      LOG.fine(() -> "peer=" + name() + " event=route-refresh-received family=" + r.family());
      speaker.rib().resend(ribPeer, r.family(), enhanced);
    }

    private void process(Update u, boolean treatAsWithdraw) {
      RibPeer rp = ribPeer;
      if (u == null || rp == null) {
        return;
      }
      ReceivedUpdate.apply(u, treatAsWithdraw, rp, negotiation.options(), speaker.rib());
      if (speaker.rib().overHighWater()) {
        pauseReading();
      }
    }

    /**
     * Read back-pressure: the RIB is behind by more than its high-water mark, so this connection
     * stops reading (auto-read off; the kernel's receive buffer fills and TCP's window stops the
     * peer) until the RIB's queue is below the low-water mark. Without it the queue grew without
     * bound, and with it the heap.
     *
     * <p>Our hold timer (RFC 4271 §4.4, §6.5) is about the peer: it expires when no KEEPALIVE,
     * UPDATE or NOTIFICATION has been <em>received</em> for the hold time. While we do not read,
     * the peer's messages wait in our socket buffer and their absence says nothing about the peer,
     * so the time paused does not count: on expiry, the timer runs again for as long as reading
     * was paused within its period ({@code timerExpired}). The peer's side is the mirror image:
     * RFC 9687's send hold timer closes a session when the peer cannot send for its SendHoldTime
     * (at least 8 minutes or twice the hold time, §4), and RFC 4271 §4.4 wants our KEEPALIVEs to
     * keep flowing, which they do (only reading stops). So that the peer never waits long, one
     * pause lasts at most {@link #MAX_READ_PAUSE}: then reading resumes until the next UPDATE finds
     * the RIB still behind, and the peer's data trickles rather than stopping.
     */
    private void pauseReading() {
      Channel ch = channel;
      if (readPaused || ch == null) {
        return;
      }
      readPaused = true;
      pausedSinceNanos = System.nanoTime();
      ch.config().setAutoRead(false);
      pauseCap = loop.schedule(() -> resumeReading(ch), MAX_READ_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
      speaker.rib().whenBelowLowWater(() -> loop.execute(() -> resumeReading(ch)));
      LOG.fine(() -> "peer=" + name() + " event=read-paused rib-queued=" + speaker.rib().queuedPrefixes());
    }

    private void resumeReading(Channel ch) {
      if (!readPaused || ch != channel) {
        return;
      }
      endPause();
      ch.config().setAutoRead(true);
    }

    /** Ends a pause (if any), keeping the time paused for the hold timer. */
    private void endPause() {
      if (readPaused) {
        pausedNanos += System.nanoTime() - pausedSinceNanos;
        readPaused = false;
      }
      if (pauseCap != null) {
        pauseCap.cancel(false);
        pauseCap = null;
      }
    }

    private void established() {
      if (this == secondary) {
        // RFC 4271 §6.8: the other connection went away before this one's OPEN could collide with
        // it (the peer closed it for its own collision resolution): this connection is the session
        Connection old = primary;
        primary = this;
        secondary = null;
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
      }
      Set<Family> families = n.families();
      ribPeer = new RibPeer(++ribPeerIds, config.address(), n.peerAs(), n.peerId(), n.fsm().internal(), v4, v6, families,
          new AdjRibOut(Peer.this::drainLater, prefixCounters));
      establishedSince = Instant.now();
      lastError = null;
      speaker.rib().peerUp(ribPeer, policy, Peer.this::maxPrefixExceeded);
    }

    void channelInactive(Channel ch) {
      if (ch == channel) {
        channel = null;
        handle(new Event.TcpConnectionFails());
        if (this == secondary && session.state() == State.IDLE) {
          cancelTimers();
          secondary = null;
        }
      }
    }

    void writabilityChanged(Channel ch) {
      if (ch != channel) {
        return;
      }
      if (ch.isWritable()) {
        blockedSinceNanos = -1;
        drain();
      } else if (blockedSinceNanos < 0) {
        blockedSinceNanos = System.nanoTime();
      }
    }
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

    @Override
    public void channelInactive(io.netty.channel.ChannelHandlerContext ctx) {
      run(() -> connection.channelInactive(ch));
    }

    @Override
    public void channelWritabilityChanged(io.netty.channel.ChannelHandlerContext ctx) {
      run(() -> connection.writabilityChanged(ch));
    }

    @Override
    public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
      LOG.fine(() -> "peer=" + name() + " event=channel-error cause=\"" + cause.getMessage() + "\"");
      ctx.close();
    }

    private void run(Runnable r) {
      if (loop.inEventLoop()) {
        r.run();
      } else {
        loop.execute(r);
      }
    }
  }
}
