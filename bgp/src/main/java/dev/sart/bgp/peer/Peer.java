package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Event;
import dev.sart.bgp.fsm.Fsm;
import dev.sart.bgp.fsm.FsmConfig;
import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.fsm.Session;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.rib.AdjRibOut;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Open;
import dev.sart.bgp.wire.RouteRefresh;
import dev.sart.bgp.wire.Update;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One configured neighbour: drives its FSM ({@link Fsm}) on one Netty event loop, performs the
 * FSM's actions on the TCP connection(s), resolves connection collisions (RFC 4271 §6.8, {@link
 * Collisions}), feeds received UPDATEs to the RIB and drains its Adj-RIB-Out into UPDATEs while the
 * channel is writable. Every method that touches state runs on {@link #loop}.
 */
public final class Peer {
  static final Logger LOG = Logger.getLogger(Peer.class.getName());
  static final int DRAIN_CHUNK = 2048;

  /**
   * Chunks per drain task: then the task queues itself again, so timers and reads run in between.
   */
  private static final int DRAIN_ROUNDS = 4;

  /**
   * The longest a connection stops reading for the RIB before it reads again (see {@link
   * ReadPause}).
   */
  static final Duration MAX_READ_PAUSE = Duration.ofSeconds(5);

  /** What a peer needs from the speaker that owns it. */
  public interface Speaker {
    long localAs();

    int routerId();

    Rib rib();

    /** Opens an outgoing connection for this peer (with its TTL, MD5 and local address). */
    io.netty.channel.ChannelFuture connect(
        Peer peer, io.netty.channel.ChannelInitializer<Channel> initializer);

    void stateChanged(Peer peer, State from, State to);

    /** The speaker's update groups; null: every peer sends from its own Adj-RIB-Out. */
    default UpdateGroups updateGroups() {
      return null;
    }

    /** Our CLUSTER_ID (RFC 4456 §7): the BGP Identifier unless configured. */
    default int clusterId() {
      return routerId();
    }

    /** The speaker's own graceful restart (RFC 4724 §4.1); null: it has none. */
    default RestartingSpeaker restart() {
      return null;
    }
  }

  /**
   * How soon a member waiting for a full group queue looks again (and whether a slow member must
   * leave).
   */
  private static final long BLOCKED_RETRY_MILLIS = 100;

  final PeerConfig config;
  final Speaker speaker;
  final EventLoop loop;
  final FsmConfig fsmConfig;
  Connection primary;
  Connection secondary;
  RibPeer ribPeer;
  int ribPeerIds;
  // read from other threads (API)
  // written on the loop, read by the API: no snapshot object is built per message
  volatile State state = State.IDLE;
  volatile Negotiation negotiated;
  final java.util.concurrent.atomic.AtomicLongArray sent =
      new java.util.concurrent.atomic.AtomicLongArray(6);
  final java.util.concurrent.atomic.AtomicLongArray received =
      new java.util.concurrent.atomic.AtomicLongArray(6);
  volatile long flaps;
  volatile String lastError;
  volatile String lastReset;
  volatile Instant lastResetAt;
  volatile Instant establishedSince;
  final dev.sart.bgp.rib.PrefixCounters prefixCounters = new dev.sart.bgp.rib.PrefixCounters();
  volatile PeerPolicy policy = PeerPolicy.NONE;
  private boolean retryScheduled; // on the loop
  // update groups: this session's place in them (on the loop)
  final GroupMembership grouping = new GroupMembership(this);
  // RFC 4724 §4.2: this peer's routes kept while it restarts (on the loop)
  final RestartHelper helper = new RestartHelper(this);
  // RFC 4724 §4.1: what the speaker's restart waits for from this peer
  final RestartSync restartSync = new RestartSync(this);
  // failures in a row, for logging at a falling rate (on the loop)
  final FailureLog failures = new FailureLog(this);

  /**
   * RFC 4724 §4.2, helper: the families whose routes of the peer's previous session are kept,
   * stale, while it restarts; empty when none are (for metrics: a snapshot, written on the loop).
   */
  public java.util.Set<Family> staleFamilies() {
    return helper.staleFamilies();
  }

  /**
   * The routes of a session kept stale while the peer restarts (RFC 4724 §4.2), handed from a peer
   * to the one that replaces it ({@link #stopForChange}, {@link #adopt}).
   *
   * @param session the ended session whose routes are kept
   * @param families the families kept
   * @param restartTime how long they stay if no new session comes up
   */
  public record StaleRoutes(
      RibPeer session, java.util.Set<Family> families, Duration restartTime) {}

  public Peer(PeerConfig config, Speaker speaker, EventLoop loop, int ribPeerId) {
    this.config = config;
    this.speaker = speaker;
    this.loop = loop;
    this.ribPeerIds = ribPeerId;
    this.fsmConfig =
        FsmConfig.defaults()
            .withConnectRetryTime(config.connectRetryTime())
            .withPassive(config.passive())
            // damped, at most 10 s: a node whose link is back takes its ToR's connection soon
            .withIdleHoldTime(Duration.ofSeconds(1), Duration.ofSeconds(10));
    this.primary = new Connection(this, Session.initial(fsmConfig), false);
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
    return PeerStatus.of(this);
  }

  /** Prefixes received from, accepted from and advertised to this peer (any thread). */
  public dev.sart.bgp.rib.PrefixCounters prefixCounters() {
    return prefixCounters;
  }

  /**
   * The number of the update group the session sends from; 0: none, it sends from its own
   * Adj-RIB-Out (any thread).
   */
  public int updateGroup() {
    return grouping.groupId();
  }

  /** How many sessions share the update group of {@link #updateGroup} (0: none; any thread). */
  public int updateGroupMembers() {
    return grouping.groupSize();
  }

  /** What the session's OPENs agreed on while one is up, else null (any thread). */
  public Negotiation negotiation() {
    return negotiated;
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
    synchronized (this) {
      PeerPolicy old = policy;
      policy = p;
      // queued under the lock: two callers' changes reach the RIB in the order they were set, so
      // the RIB ends with the policy this peer reports
      loop.execute(
          () -> {
            if (ribPeer == null) {
              return;
            }
            grouping.leave(
                ribPeer, "export policy changed"); // the RIB changes it after the group is left
            speaker.rib().setPolicy(ribPeer, p);
            boolean kept = old.softReconfigurationInbound() && p.softReconfigurationInbound();
            if ((!kept && !old.importPolicy().equals(p.importPolicy()))
                || (p.softReconfigurationInbound() && !old.softReconfigurationInbound())) {
              requestRouteRefresh();
            }
          });
    }
  }

  /** The RIB counted more accepted prefixes than the limit ({@link MaxPrefixStop}). */
  void maxPrefixExceeded(RibPeer rp, Family family, long accepted, MaxPrefix limit) {
    MaxPrefixStop.exceeded(this, rp, family, accepted, limit);
  }

  // the peer's BFD session as the speaker's BFD endpoint reports it (any thread)
  private volatile java.util.function.Supplier<dev.sart.bgp.bfd.BfdStatus> bfd = () -> null;

  /** The BFD session's snapshot, or null when the peer has none (any thread). */
  public dev.sart.bgp.bfd.BfdStatus bfdStatus() {
    return bfd.get();
  }

  /** Where {@link #bfdStatus} comes from (the speaker, when the peer is configured with BFD). */
  public void bfdStatusFrom(java.util.function.Supplier<dev.sart.bgp.bfd.BfdStatus> source) {
    bfd = source;
  }

  /** ManualStart (or its passive variant): RFC 4271 §8.1.2 events 1 and 4. */
  public void start() {
    loop.execute(
        () ->
            primary.handle(
                config.passive()
                    ? new Event.ManualStartWithPassiveTcpEstablishment()
                    : new Event.ManualStart()));
  }

  /**
   * RFC 5882 §4.3 and §10.2: the peer's BFD session went down, so the forwarding path to it is
   * gone; the session is taken down at once instead of after the hold time (event 8, with RFC
   * 9384's Cease / BFD Down) and starts again by itself after the IdleHoldTime.
   */
  public void bfdDown(String why) {
    loop.execute(
        () -> {
          if (primary.session.state() == State.IDLE) {
            return;
          }
          LOG.info(() -> "peer=" + name() + " event=bfd-down state=" + state + " reason=" + why);
          primary.handle(new Event.AutomaticStop(Iana.ErrorSubcode.BFD_DOWN));
        });
  }

  /** ManualStop: Cease to the peer, routes withdrawn; completes when the connection is closed. */
  public CompletableFuture<Void> stop() {
    return stop(Iana.ErrorSubcode.ADMINISTRATIVE_SHUTDOWN);
  }

  /**
   * ManualStop with Cease / {@code ceaseSubcode} (RFC 4486 §4: Peer De-configured for a deleted
   * peer), routes withdrawn; completes when the connection is closed.
   */
  public CompletableFuture<Void> stop(int ceaseSubcode) {
    return endConnections(
        c -> {
          c.handle(new Event.ManualStop(ceaseSubcode));
          c.cancelTimers();
        },
        () -> {
          secondary = null;
          helper.flushStale(); // a peer stopped (deleted) keeps nothing
          return null;
        });
  }

  /**
   * Ends the session because the neighbour's configuration changed, for the peer that replaces this
   * one: ManualStop with Cease / Other Configuration Change (RFC 4486 §4). With RFC 8538's N bit on
   * both sides that is no Hard Reset, so both speakers keep the other's routes, stale, until the
   * new session has sent them again (§4; RFC 4724 §4.2): the routes kept here are handed over, not
   * withdrawn. Completes, when the connection is closed, with what was kept (null: nothing).
   */
  public CompletableFuture<StaleRoutes> stopForChange() {
    return endConnections(
        c -> {
          c.handle(new Event.ManualStop(Iana.ErrorSubcode.OTHER_CONFIGURATION_CHANGE));
          c.cancelTimers();
        },
        () -> {
          secondary = null;
          return helper.handOver();
        });
  }

  /**
   * Before {@link #start}: the message counts, flaps and last reset of the (stopped) peer this one
   * replaces, so that the neighbour's history, and its Prometheus counters, go on across a changed
   * configuration instead of starting again from zero.
   */
  public void continueCounters(Peer old) {
    for (int i = 0; i < sent.length(); i++) {
      sent.set(i, old.sent.get(i));
      received.set(i, old.received.get(i));
    }
    flaps = old.flaps;
    lastReset = old.lastReset;
    lastResetAt = old.lastResetAt;
  }

  /**
   * Before {@link #start}: the routes of the peer this one replaces, kept stale while its session
   * restarts ({@link #stopForChange}); they go at this session's End-of-RIB as a restarted peer's
   * do, or at once when this configuration is no helper.
   */
  public void adopt(StaleRoutes kept) {
    if (kept != null) {
      loop.execute(() -> helper.adopt(kept));
    }
  }

  /**
   * The speaker stops to start again (RFC 4724 §4.1): every connection is closed without a
   * NOTIFICATION, so that a helper keeps our routes, stale, until we are back or our restart time
   * has passed (§4.2); a Cease would end its help. Completes when the connections are closed.
   */
  public CompletableFuture<Void> closeForRestart() {
    return endConnections(
        Connection::closeForRestart,
        () -> {
          LOG.info(() -> "peer=" + name() + " event=closed-for-restart state=" + state);
          return null;
        });
  }

  /**
   * On the loop: {@code end} on each connection, then {@code after}; completes with what {@code
   * after} returned when the channels the connections had are closed.
   */
  private <T> CompletableFuture<T> endConnections(
      java.util.function.Consumer<Connection> end, java.util.function.Supplier<T> after) {
    CompletableFuture<T> done = new CompletableFuture<>();
    loop.execute(
        () -> {
          List<Channel> channels = new ArrayList<>();
          for (Connection c : new Connection[] {primary, secondary}) {
            if (c != null) {
              if (c.channel != null) {
                channels.add(c.channel);
              }
              end.accept(c);
            }
          }
          T result = after.get();
          CompletableFuture.allOf(
                  channels.stream()
                      .map(
                          ch -> {
                            CompletableFuture<Void> f = new CompletableFuture<>();
                            ch.closeFuture().addListener(x -> f.complete(null));
                            return f;
                          })
                      .toArray(CompletableFuture[]::new))
              .whenComplete((v, e) -> done.complete(result));
        });
    return done;
  }

  /** The RIB's view of the session while it is Established (for Adj-RIB-In queries), else null. */
  public CompletableFuture<RibPeer> ribPeer() {
    CompletableFuture<RibPeer> f = new CompletableFuture<>();
    loop.execute(() -> f.complete(ribPeer));
    return f;
  }

  /** Asks the peer to send its routes again (RFC 2918), for every negotiated family. */
  public void requestRouteRefresh() {
    loop.execute(
        () -> {
          Connection c = primary;
          if (c.session.state() == State.ESTABLISHED
              && c.negotiation != null
              && c.negotiation.routeRefresh()) {
            for (Family f : c.negotiation.families()) {
              c.send(RouteRefresh.request(f));
            }
            c.channel.flush();
          }
        });
  }

  /** Sends the peer everything again (soft reset out). */
  public void resendAdjRibOut() {
    loop.execute(
        () -> {
          if (ribPeer != null) {
            grouping.leave(ribPeer, "soft reset out");
            speaker.rib().resend(ribPeer);
          }
        });
  }

  /**
   * Whether the speaker's restart waits no longer for this peer (RFC 4724 §4.1, {@link
   * RestartSync}; any thread).
   */
  boolean restartSynced() {
    return restartSync.synced();
  }

  /** An accepted TCP connection from this peer's address (called on any thread). */
  public void accept(Channel ch) {
    loop.execute(
        () -> {
          if (primary.session.acceptsConnection()) {
            if (primary.channel != null) {
              primary.channel
                  .close(); // our own connect attempt loses to the established TCP connection
            }
            primary.attach(ch, false);
            primary.handle(new Event.TcpConnectionConfirmed());
          } else if (secondary == null
              && (primary.session.state() == State.OPEN_SENT
                  || primary.session.state() == State.OPEN_CONFIRM
                  || restartable(primary))) {
            // RFC 4271 §6.8: track the second connection until its OPEN decides which one stays;
            // against an Established session only when the peer can restart gracefully, whose
            // new OPEN ends the old session (RFC 4724 §4.2, Connection.onOpen)
            Session s = new Session(State.ACTIVE, 0, false, fsmConfig.idleHoldTime(), true, null);
            secondary = new Connection(this, s, false);
            secondary.attach(ch, false);
            secondary.handle(new Event.TcpConnectionConfirmed());
          } else {
            Rejection.reject(this, ch);
          }
        });
  }

  /** An Established connection whose peer sent the graceful restart capability (RFC 4724). */
  static boolean restartable(Connection c) {
    return c.session.state() == State.ESTABLISHED
        && c.peer().config.gracefulRestart().helper()
        && c.negotiation != null
        && Connection.gracefulRestart(c.negotiation.received()) != null;
  }

  String name() {
    return config.address().getHostAddress();
  }

  /** The OPEN we send ({@link LocalOpen}). */
  Open localOpen() {
    return LocalOpen.of(this);
  }

  /**
   * Drains the Adj-RIB-Out into UPDATEs while the channel takes them (back-pressure: stop when not
   * writable).
   */
  void drain() {
    Connection c = primary;
    RibPeer rp = ribPeer;
    if (rp == null || c.channel == null || c.session.state() != State.ESTABLISHED) {
      return;
    }
    if (grouping.leaving()) {
      return; // its own Adj-RIB-Out waits for the tail of the group it leaves (left drains again)
    }
    RestartingSpeaker restart = speaker.restart();
    if (restart != null && !restart.complete()) {
      return; // RFC 4724 §4.1: nothing leaves before the restart is complete (then it drains us)
    }
    List<Family> families = List.copyOf(rp.families());
    int rounds = 0;
    boolean blocked = false;
    // first what a group this session left had queued for it, then the group's, then its own
    while (c.channel.isWritable() && rounds++ < DRAIN_ROUNDS) {
      GroupMembership.Sent sent = grouping.send(c, rp);
      if (sent == GroupMembership.Sent.SOME) {
        continue;
      }
      if (sent != GroupMembership.Sent.NOT_GROUPED) {
        blocked = sent == GroupMembership.Sent.BLOCKED;
        break;
      }
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
    boolean grouped = grouping.grouped(rp);
    boolean more = grouping.hasPending(rp, grouped);
    if (blocked) {
      if (!retryScheduled) {
        retryScheduled = true;
        loop.schedule(
            () -> {
              retryScheduled = false;
              drain();
            },
            BLOCKED_RETRY_MILLIS,
            TimeUnit.MILLISECONDS);
      }
    } else if (more && c.channel.isWritable()) {
      drainLater();
    } else if (!more && !grouped) {
      grouping.join(rp, c.codec.options());
    }
  }

  // --- the session state: written only here, on the loop. Connection, Collisions, FailureLog and
  // Rejection hand each event to one of these methods (issue 23 §4; ArchitectureTest pins it)

  /** The primary connection's FSM went from {@code before} to {@code after} (loop). */
  void primaryStateChanged(State before, State after, Negotiation n) {
    if (before == State.ESTABLISHED) {
      flaps++;
      establishedSince = null;
      // what ended it was recorded before the FSM moved (the NOTIFICATION, the close)
      lastReset = lastError != null ? lastError : "unknown";
      lastResetAt = Instant.now();
    }
    negotiated = n;
    state = after;
    speaker.stateChanged(this, before, after);
  }

  /** The peer's state is now {@code now}, that of the connection a collision kept (loop). */
  void stateIs(State now) {
    State was = state;
    if (was != now) {
      state = now;
      speaker.stateChanged(this, was, now);
    }
  }

  /** The last error, for the API (loop). */
  void error(String what) {
    lastError = what;
  }

  /** {@code c} carries the session from now on; the other connection is gone (loop). */
  void promote(Connection c) {
    primary = c;
    secondary = null;
  }

  /** The second connection {@code c} is gone, if it is still the second one (loop). */
  void dropSecondary(Connection c) {
    if (secondary == c) {
      secondary = null;
    }
  }

  /**
   * The primary connection reached Established with {@code n}; {@code v4} and {@code v6} are our
   * next hops towards the peer: a new RIB peer goes up with this peer's policy (loop).
   */
  void sessionUp(Negotiation n, dev.sart.bgp.wire.MpNextHop v4, dev.sart.bgp.wire.MpNextHop v6) {
    java.util.Set<Family> families = n.families();
    ribPeer =
        new RibPeer(
            ++ribPeerIds,
            config.address(),
            n.peerAs(),
            n.peerId(),
            n.fsm().internal(),
            v4,
            v6,
            families,
            new AdjRibOut(this::drainLater, prefixCounters)
                .withAddPath(FabricCapabilities.addPathSend(config, n)),
            prefixCounters,
            FabricCapabilities.reflection(config, speaker));
    establishedSince = Instant.now();
    lastError = null;
    speaker.rib().peerUp(ribPeer, policy, this::maxPrefixExceeded);
    helper.restartedSessionUp(Connection.gracefulRestart(n.received()));
    restartSync.sessionUp(families, Connection.gracefulRestart(n.received()));
  }

  /**
   * The primary connection's session ended ({@code was}: what it had negotiated); {@code
   * restarting}: as a restart ends one — its TCP connection failed without a NOTIFICATION either
   * way (RFC 4724 §4.2), or with one other than a Hard Reset after both sent the N bit (RFC 8538
   * §4) (loop).
   */
  void sessionDown(Negotiation was, boolean restarting) {
    grouping.leave(ribPeer, "session down", false); // a member gone would hold up its group's queue
    // RFC 4724 §4.2: a peer that sent the graceful restart capability and whose session ended so
    // is restarting: its routes stay, stale
    Capability.GracefulRestart gr = was == null ? null : Connection.gracefulRestart(was.received());
    if (gr != null && config.gracefulRestart().helper() && restarting) {
      helper.restarting(ribPeer, gr);
    } else {
      speaker.rib().peerDown(ribPeer);
      if (helper.session != null) {
        helper.flushStale(); // its successor is down for good: nothing is coming again
      }
    }
    ribPeer = null;
    prefixCounters.clearAdvertised();
    restartSync.sessionDown();
  }

  /**
   * Drains again after the loop has served its sockets. Netty 4.2 runs queued tasks for up to
   * {@code io.netty.eventLoop.maxTaskProcessingQuantumMs} (1 s) before it looks at I/O again, so a
   * drain that re-queued itself with {@code execute} kept OPENs, KEEPALIVEs and reads of every
   * channel of the loop waiting that long while there was a table to send; a scheduled task is
   * taken only at the start of the next round, after I/O.
   */
  void drainLater() {
    loop.schedule(this::drain, 0, TimeUnit.NANOSECONDS);
  }
}
