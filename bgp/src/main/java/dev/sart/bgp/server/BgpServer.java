package dev.sart.bgp.server;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.peer.UpdateGroups;
import dev.sart.bgp.rib.Attrs;
import dev.sart.bgp.rib.BestPath;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.PathAttributes;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The BGP speaker: listens on the BGP port, owns the peers and the RIB. Peers run on the event
 * loops of one epoll group; management calls (the API) may come from any thread.
 */
public final class BgpServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(BgpServer.class.getName());

  /** Told of every peer state change (the exporter, the API's watch, metrics). */
  public interface PeerStateListener {
    void changed(Peer peer, State from, State to);
  }

  private final int port;
  private final EventLoopGroup group;
  private final PeerBfd bfd;
  private final Rib rib = new Rib();

  /**
   * Peers that export alike share one Adj-RIB-Out and one encoding ({@code UpdateGroup}); {@code
   * -Dsart.bgp.updateGroups=false} gives every peer its own (for measurements).
   */
  private final UpdateGroups updateGroups =
      Boolean.parseBoolean(System.getProperty("sart.bgp.updateGroups", "true"))
          ? new UpdateGroups()
          : null;

  private final Map<InetAddress, Peer> peers = new ConcurrentHashMap<>();
  private final List<PeerStateListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicInteger ribPeerIds = new AtomicInteger();

  /** The one owner of management: every change below runs on its thread ({@link Management}). */
  private final Management management = new Management();

  private final PolicyRegistry policies = new PolicyRegistry(this);
  private volatile long localAs;
  private volatile int routerId;
  private volatile int clusterId; // RFC 4456 §7; 0: the router id
  private volatile boolean multipath;
  private volatile Channel listener;
  private volatile dev.sart.bgp.peer.RestartingSpeaker restart;
  // unnumbered neighbours (issue 28), made into peers once their address is learned
  private final InterfacePeers interfacePeers;

  /**
   * @param port the BGP port to listen on (179), 0 to not listen
   * @param threads event loop threads
   * @param threadFactory makes the event loop threads (tests make them enter a network namespace)
   */
  public BgpServer(int port, int threads, ThreadFactory threadFactory) {
    this.port = port;
    this.bfd = new PeerBfd(threadFactory, peers::get);
    this.interfacePeers = new InterfacePeers(new InterfaceHost(), threadFactory);
    this.group =
        new MultiThreadIoEventLoopGroup(threads, threadFactory, EpollIoHandler.newFactory());
  }

  public BgpServer(int port) {
    this(
        port,
        Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())),
        Thread.ofPlatform().name("bgp-io-", 0).daemon().factory());
  }

  /**
   * Makes this speaker the restarting speaker of RFC 4724 §4.1 ({@link
   * dev.sart.bgp.peer.RestartingSpeaker}): before {@link #start}, which starts its
   * Selection_Deferral_Timer. Without it our OPENs say that no forwarding state is kept and nothing
   * is held back.
   */
  public dev.sart.bgp.peer.RestartingSpeaker restartGracefully(
      dev.sart.bgp.peer.RestartingSpeaker.Settings settings) {
    if (listener != null) {
      throw new IllegalStateException("graceful restart is set before the server starts");
    }
    restart = new dev.sart.bgp.peer.RestartingSpeaker(settings, rib, peers::values);
    return restart;
  }

  /** The speaker's restart (RFC 4724 §4.1), or null when it has none. */
  public dev.sart.bgp.peer.RestartingSpeaker restart() {
    return restart;
  }

  /**
   * Runs {@code r} once the speaker's restart is complete ({@link
   * dev.sart.bgp.peer.RestartingSpeaker#whenComplete}); at once without a restart.
   */
  public void whenRestartComplete(Runnable r) {
    dev.sart.bgp.peer.RestartingSpeaker s = restart;
    if (s == null) {
      r.run();
    } else {
      s.whenComplete(r);
    }
  }

  /** The locally originated paths are all back (RFC 4724 §4.1; a no-op without a restart). */
  public void localPathsComplete() {
    dev.sart.bgp.peer.RestartingSpeaker s = restart;
    if (s != null) {
      s.localPathsComplete();
    }
  }

  /** Binds the listener ([::]:port, which takes IPv4 too) from an event loop thread. */
  public void start() {
    if (restart != null) {
      restart.start(group);
    }
    if (port == 0) {
      return;
    }
    ServerBootstrap b =
        new ServerBootstrap()
            .group(group)
            .channel(EpollServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // nothing is read before the peer has put its decoder into the pipeline (Peer.attach)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, PeerSockets.READS)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, PeerSockets.WRITES)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    InetAddress remote =
                        normalize(((InetSocketAddress) ch.remoteAddress()).getAddress());
                    Peer peer = peers.get(remote);
                    if (peer == null
                        && ((InetSocketAddress) ch.remoteAddress()).getAddress()
                            instanceof java.net.Inet6Address ll
                        && interfacePeers.connectionFrom(ll)) {
                      ch.close(); // the peer is made for its address; our connection follows
                      return;
                    }
                    if (peer == null) {
                      // closed without a NOTIFICATION: a Cease / Connection Rejected (RFC 4486 §4)
                      // sends a speaker that is about to configure us (another node) into its
                      // damped Idle, and two that then refuse each other in Idle never meet
                      LOG.fine(
                          () ->
                              "event=connection-refused from="
                                  + remote.getHostAddress()
                                  + " reason=unknown-peer");
                      ch.close();
                      return;
                    }
                    PeerSockets.applyTtl(peer.config(), ch, localAs);
                    peer.accept(ch);
                  }
                });
    CompletableFuture<Channel> bound = new CompletableFuture<>();
    group
        .next()
        .execute(
            () ->
                b.bind(new InetSocketAddress(port))
                    .addListener(
                        (ChannelFuture f) -> {
                          if (f.isSuccess()) {
                            bound.complete(f.channel());
                          } else {
                            bound.completeExceptionally(f.cause());
                          }
                        }));
    listener = bound.join();
    // RFC 5082 §3: with GTSM everything we send leaves with TTL 255, the SYN-ACK to a peer that
    // connects to us included; the kernel sends that from the listening socket, before the
    // accepted one gets its own TTL (applyTtl), and a GTSM peer drops it otherwise (BIRD, GoBGP
    // and OpenBGPD did: the TTL was 64). For other peers the SYN-ACK's TTL does not matter.
    int lfd = ((io.netty.channel.unix.UnixChannel) listener).fd().intValue();
    dev.sart.bgp.peer.Sockets.setTtl(lfd, false, 255);
    dev.sart.bgp.peer.Sockets.setTtl(lfd, true, 255);
    management.run(this::updateMd5Keys);
    LOG.info(() -> "event=listening port=" + port);
  }

  public Rib rib() {
    return rib;
  }

  /** The update groups (null when they are turned off). */
  public UpdateGroups updateGroups() {
    return updateGroups;
  }

  /** The named policies the peers refer to (API and configuration file). */
  public PolicyRegistry policies() {
    return policies;
  }

  public long localAs() {
    return localAs;
  }

  public int routerId() {
    return routerId;
  }

  public boolean multipath() {
    return multipath;
  }

  public int port() {
    return port;
  }

  public void addListener(PeerStateListener l) {
    listeners.add(l);
  }

  /**
   * Adds a listener, then hands every existing peer to {@code current}, with no lock held (issue 23
   * §4: a listener takes its own locks). Every change is seen: one made before {@code current}
   * reads the peer's state is in what it reads, since a peer's state is written before its
   * listeners are looked up (both volatile); one made after reaches {@code l}. A change may reach
   * {@code l} before {@code current} reads that peer, so {@code current} must not replace what
   * {@code l} was given (what it reads is then as new or older).
   */
  public void addListener(PeerStateListener l, java.util.function.Consumer<Peer> current) {
    listeners.add(l);
    peers.values().forEach(current);
  }

  public void removeListener(PeerStateListener l) {
    listeners.remove(l);
  }

  /**
   * Sets the local AS; refused while peers exist with another one (their sessions were opened with
   * it). AS 0 is reserved (RFC 7607).
   */
  public void setLocalAs(long asn) {
    management.run(
        () -> {
          if (asn <= 0 || asn > 0xffff_ffffL) {
            throw new IllegalArgumentException(
                asn == 0 ? "AS 0 is reserved (RFC 7607)" : "AS must be 1..4294967295: " + asn);
          }
          if (!peers.isEmpty() && localAs != asn) {
            throw new IllegalStateException("delete the peers before changing the local AS");
          }
          this.localAs = asn;
          rib.setLocalAs(asn);
        });
  }

  /** Sets the BGP identifier; refused while peers exist with another one. 0 is invalid. */
  public void setRouterId(int id) {
    management.run(
        () -> {
          if (id == 0) {
            throw new IllegalArgumentException("router id 0.0.0.0 is invalid (RFC 6286)");
          }
          if (!peers.isEmpty() && routerId != id) {
            throw new IllegalStateException("delete the peers before changing the router id");
          }
          this.routerId = id;
        });
  }

  /**
   * Our CLUSTER_ID as a route reflector (RFC 4456 §7); 0: the BGP Identifier. Sessions established
   * after the call use it.
   */
  public void setClusterId(int id) {
    management.run(() -> this.clusterId = id);
  }

  /** The CLUSTER_ID in use (RFC 4456 §7). */
  public int clusterId() {
    int c = clusterId;
    return c != 0 ? c : routerId;
  }

  public void setMultipath(boolean enable) {
    management.run(
        () -> {
          this.multipath = enable;
          rib.setOptions(new BestPath.Options(enable, false, false));
        });
  }

  /**
   * Back to an unconfigured speaker once its peers are gone: no local paths, no multipath, no AS or
   * router id (sart's ClearBgpInfo).
   */
  public void clear() {
    management.run(
        () -> {
          if (!peers.isEmpty()) {
            throw new IllegalStateException("delete the peers first");
          }
          rib.clearLocal();
          this.multipath = false;
          rib.setOptions(new BestPath.Options(false, false, false));
          this.localAs = 0;
          this.routerId = 0;
        });
  }

  public Collection<Peer> peers() {
    return peers.values();
  }

  public Peer peer(InetAddress address) {
    return peers.get(normalize(address));
  }

  /** Adds and starts a peer; an existing peer with the address is an error. */
  public Peer addPeer(PeerConfig config) {
    return addPeer(config, dev.sart.bgp.policy.PeerPolicy.NONE);
  }

  /** Adds and starts a peer with its policies in force from the first route on. */
  public Peer addPeer(PeerConfig config, dev.sart.bgp.policy.PeerPolicy policy) {
    return management.call(() -> addPeerNow(config, policy));
  }

  private Peer addPeerNow(PeerConfig config, dev.sart.bgp.policy.PeerPolicy policy) {
    if (localAs == 0 || routerId == 0) {
      throw new IllegalStateException("set the local AS and router id before adding peers");
    }
    if (config.interfaceName() != null && config.address().isAnyLocalAddress()) {
      interfacePeers.add(config, policy); // a peer once its link-local address is learned
      return null;
    }
    InetAddress addr = normalize(config.address());
    Peer peer = new Peer(config, new Speaker(), group.next(), ribPeerIds.addAndGet(1 << 20));
    if (peers.putIfAbsent(addr, peer) != null) {
      throw new IllegalArgumentException("peer " + addr.getHostAddress() + " exists already");
    }
    updateMd5Keys();
    peer.setPolicy(policy);
    bfd.added(addr, peer);
    peer.start();
    LOG.info(() -> "event=peer-added peer=" + addr.getHostAddress() + " asn=" + config.asn());
    return peer;
  }

  /** The interfaces with an unnumbered neighbour configured (any thread). */
  public List<String> interfacePeers() {
    return interfacePeers.interfaces();
  }

  /**
   * Stops the unnumbered neighbour on {@code ifname}: its discovery, and its peer if one was made.
   */
  public CompletableFuture<Void> deleteInterfacePeer(String ifname) {
    return management.call(
        () -> {
          InetAddress a = interfacePeers.remove(ifname);
          return a == null || peers.get(normalize(a)) == null
              ? CompletableFuture.<Void>completedFuture(null)
              : deletePeerNow(a);
        });
  }

  /** What {@link InterfacePeers} does through the management thread. */
  private final class InterfaceHost implements InterfacePeers.Host {
    @Override
    public void addPeer(PeerConfig config, dev.sart.bgp.policy.PeerPolicy policy) {
      addPeerNow(config, policy);
    }

    @Override
    public void deletePeer(InetAddress address) {
      if (peers.get(normalize(address)) != null) {
        deletePeerNow(address);
      }
    }

    @Override
    public void later(Runnable task) {
      management.later("unnumbered peer", task);
    }
  }

  /** Stops a peer (Cease / Peer De-configured, RFC 4486 §4; routes withdrawn) and forgets it. */
  public CompletableFuture<Void> deletePeer(InetAddress address) {
    return management.call(() -> deletePeerNow(address));
  }

  private CompletableFuture<Void> deletePeerNow(InetAddress address) {
    return deletePeerNow(address, Iana.ErrorSubcode.PEER_DE_CONFIGURED);
  }

  private CompletableFuture<Void> deletePeerNow(InetAddress address, int ceaseSubcode) {
    Peer peer = peers.remove(normalize(address));
    if (peer == null) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("no peer " + address.getHostAddress()));
    }
    updateMd5Keys();
    if (restart != null) {
      restart.peerRemoved(); // the restart may have waited for it
    }
    return CompletableFuture.allOf(
        peer.stop(ceaseSubcode), bfd.removed(normalize(address), peer.config()));
  }

  /**
   * Gives the peer at {@code config}'s address a new configuration. The same configuration only
   * sets the policies (as {@link Peer#setPolicy} does: no session restarts). Another one ends the
   * session with Cease / Other Configuration Change (RFC 4486 §4) and starts a new one with it:
   * where both sides sent RFC 8538's N bit that is a graceful restart for both, each keeps the
   * other's routes, stale, until the new session has sent them again ({@link Peer#stopForChange});
   * otherwise the routes go, as after a deletion. The BFD session stays when its settings did not
   * change. An unnumbered neighbour is given by its interface; a missing peer is an error.
   */
  public CompletableFuture<Void> replacePeer(
      PeerConfig config, dev.sart.bgp.policy.PeerPolicy policy) {
    return management.call(
        () -> {
          if (config.interfaceName() != null && config.address().isAnyLocalAddress()) {
            InetAddress learned = interfacePeers.replace(config, policy);
            return learned == null
                ? CompletableFuture.<Void>completedFuture(null)
                : replacePeerNow(config.withAddress(learned), policy);
          }
          return replacePeerNow(config, policy);
        });
  }

  private CompletableFuture<Void> replacePeerNow(
      PeerConfig config, dev.sart.bgp.policy.PeerPolicy policy) {
    InetAddress addr = normalize(config.address());
    Peer old = peers.get(addr);
    if (old == null) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("no peer " + addr.getHostAddress()));
    }
    if (old.config().equals(config)) {
      old.setPolicy(policy);
      return CompletableFuture.completedFuture(null);
    }
    return old.stopForChange()
        // on the management thread, not on the peer loop that completed the stop
        .thenAcceptAsync(
            kept -> management.run(() -> startReplacement(old, config, policy, kept)),
            r -> Thread.ofVirtual().start(r));
  }

  private void startReplacement(
      Peer old, PeerConfig config, dev.sart.bgp.policy.PeerPolicy policy, Peer.StaleRoutes kept) {
    InetAddress addr = normalize(config.address());
    if (peers.get(addr) != old) {
      // deleted (or replaced again) while it stopped: what it kept goes with it
      if (kept != null) {
        rib.flushStale(kept.session(), null);
      }
      return;
    }
    Peer peer = new Peer(config, new Speaker(), group.next(), ribPeerIds.addAndGet(1 << 20));
    peers.put(addr, peer);
    updateMd5Keys();
    peer.setPolicy(policy);
    bfd.replaced(addr, old.config(), peer);
    peer.continueCounters(old);
    peer.adopt(kept);
    peer.start();
    LOG.info(
        () ->
            "event=peer-replaced peer="
                + addr.getHostAddress()
                + " asn="
                + config.asn()
                + " stale-kept="
                + (kept == null ? "[]" : kept.families()));
  }

  private CompletableFuture<Void> closeForRestart(InetAddress address) {
    return management.call(
        () -> {
          Peer peer = peers.get(normalize(address));
          return peer == null
              ? CompletableFuture.<Void>completedFuture(null)
              : peer.closeForRestart();
        });
  }

  /** The BFD session of a peer (RFC 5880), or null when the peer has none (any thread). */
  public dev.sart.bgp.bfd.BfdStatus bfdStatus(InetAddress address) {
    return bfd.status(normalize(address));
  }

  /** Originates prefixes with the given attributes (next hop: ours, set per peer on export). */
  public void addPaths(List<Prefix> prefixes, PathAttributes attributes) {
    Map<Boolean, List<Prefix>> byFamily = new HashMap<>();
    for (Prefix p : prefixes) {
      byFamily.computeIfAbsent(p.isIpv4(), k -> new java.util.ArrayList<>()).add(p);
    }
    byFamily.forEach(
        (v4, ps) ->
            rib.originate(
                ps, Attrs.of(attributes, v4 ? new MpNextHop.V4(0) : new MpNextHop.V6(0, 0))));
  }

  public void deletePaths(List<Prefix> prefixes) {
    rib.withdrawLocal(prefixes);
  }

  /** The listener's MD5 keys and GTSM filter for the peers as they are now (management only). */
  private void updateMd5Keys() {
    management.applyListenerKeys(listener, peers.values());
  }

  static InetAddress normalize(InetAddress a) {
    if (a instanceof Inet6Address v6) {
      byte[] b = v6.getAddress();
      boolean mapped = true;
      for (int i = 0; i < 10; i++) {
        mapped &= b[i] == 0;
      }
      mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
      if (mapped) {
        try {
          return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
        } catch (UnknownHostException e) {
          throw new AssertionError(e);
        }
      }
      if (v6.getScopeId() != 0) {
        try {
          return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
          throw new AssertionError(e);
        }
      }
    }
    return a;
  }

  /**
   * Stops the speaker. A restarting speaker ({@link #restartGracefully}) stops to start again: its
   * sessions end without a NOTIFICATION, so that each helper keeps our routes (RFC 4724 §4.2) while
   * the FIB keeps the kernel's (the F bit), and then its BFD sessions stop without AdminDown, as in
   * a crash (our BFD shares fate with the control plane: C bit clear). FRR 8.4's bfdd passes a
   * neighbour's AdminDown to bgpd as a plain down, and bgpd then ended the BGP session itself,
   * Cease and all, before our TCP close reached it; the silent BFD session goes down at the peer a
   * Detection Time later, when it is helping already. Otherwise every peer is deleted: Cease.
   */
  @Override
  public void close() {
    interfacePeers.close();
    boolean restarting = restart != null;
    CompletableFuture.allOf(
            peers.keySet().stream()
                .map(
                    a ->
                        restarting
                            ? closeForRestart(a)
                            : management.call(
                                () -> deletePeerNow(a, Iana.ErrorSubcode.ADMINISTRATIVE_SHUTDOWN)))
                .toArray(CompletableFuture[]::new))
        .orTimeout(5, java.util.concurrent.TimeUnit.SECONDS)
        .exceptionally(e -> null)
        .join();
    if (listener != null) {
      listener.close().syncUninterruptibly();
    }
    bfd.close(!restarting);
    group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    management.close();
    rib.close();
  }

  /** The view of the server each peer gets. */
  private final class Speaker implements Peer.Speaker {
    @Override
    public long localAs() {
      return localAs;
    }

    @Override
    public int routerId() {
      return routerId;
    }

    @Override
    public int clusterId() {
      return BgpServer.this.clusterId();
    }

    @Override
    public Rib rib() {
      return rib;
    }

    @Override
    public UpdateGroups updateGroups() {
      return updateGroups;
    }

    @Override
    public ChannelFuture connect(Peer peer, ChannelInitializer<Channel> initializer) {
      return PeerSockets.connect(peer, initializer, localAs);
    }

    @Override
    public dev.sart.bgp.peer.RestartingSpeaker restart() {
      return restart;
    }

    @Override
    public void stateChanged(Peer peer, State from, State to) {
      if (restart != null && to == State.ESTABLISHED) {
        restart.peerEstablished();
      }
      // on the peer's loop, in the order of its changes; no lock held (copy-on-write list)
      for (PeerStateListener l : listeners) {
        l.changed(peer, from, to);
      }
    }
  }
}
