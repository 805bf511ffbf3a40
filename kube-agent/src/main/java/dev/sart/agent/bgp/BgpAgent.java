package dev.sart.agent.bgp;

import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The BGP side of the node agent: watches this node's NodeBGP and BGPPeers and all
 * BGPAdvertisements (fabric8 informers) and drives the node's speaker through its gRPC API.
 *
 * <p>One owner thread runs every pass over the whole node state (level-triggered): an informer
 * event, a peer-state event from the speaker's stream, the stream breaking, a failure's retry and a
 * periodic resync all just ask for a pass, and requests coalesce. A speaker found unconfigured (AS
 * 0) or a broken peer-state stream means the speaker restarted: the agent forgets what it had sent
 * and re-applies the ASN, router id, multipath, the per-peer export policies, every peer and every
 * announced prefix.
 */
public final class BgpAgent implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(BgpAgent.class.getName());
  static final Duration RETRY = Duration.ofSeconds(1);

  private final KubernetesClient client;
  private final String node;
  private final Duration resync;
  private final String speakerEndpoint;
  private final ScheduledExecutorService loop;
  private final AtomicBoolean pending = new AtomicBoolean();

  /**
   * False until every informer has its first list: a pass on a partial cache would delete peers and
   * prefixes.
   */
  private volatile boolean ready;

  private final NodeBgpReconciler nodeBgp;
  private final PeerReconciler peers;
  private final AdvertisementReconciler adverts;
  private final ExportPolicies exports = new ExportPolicies();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final List<Runnable> peerListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private SharedIndexInformer<NodeBGP> nodeBgps;
  private SharedIndexInformer<BGPPeer> bgpPeers;
  private SharedIndexInformer<BGPAdvertisement> bgpAdverts;

  // owned by the loop thread
  private Speaker speaker;

  /** Whether the speaker was told that this pass's paths are all there (since its start). */
  private boolean localPathsComplete;

  private volatile PeerWatch watch;
  private boolean speakerDown;
  private long passes;
  private volatile boolean lastPassOk;
  private volatile AgentMetrics metrics;

  /**
   * The uid of the deleted NodeBGP whose speaker this agent cleared (it must not configure it
   * again).
   */
  private String released;

  /** The neighbours that held the NodeBGP's deletion at the last pass. */
  private List<String> heldBy;

  public BgpAgent(KubernetesClient client, String node, Duration resync) {
    this(client, node, resync, null);
  }

  /**
   * @param speakerEndpoint the speaker's gRPC endpoint (host:port), overriding the NodeBGP's {@code
   *     speaker.path}; null to use that
   */
  public BgpAgent(KubernetesClient client, String node, Duration resync, String speakerEndpoint) {
    this.speakerEndpoint = speakerEndpoint;
    if (node == null || node.isBlank()) {
      throw new IllegalArgumentException("the agent needs its node name (NODE_NAME)");
    }
    this.client = client;
    this.node = node;
    this.resync = resync;
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bgp-agent-" + node).factory());
    this.nodeBgp = new NodeBgpReconciler(client);
    this.peers = new PeerReconciler(client);
    this.adverts = new AdvertisementReconciler(client);
  }

  /**
   * Registers the agent's meters (sart.md §6.6) in {@code registry}; call before {@link #start}.
   * The daemon calls {@link AgentMetrics#refresh} before each scrape.
   */
  public AgentMetrics metrics(io.micrometer.core.instrument.MeterRegistry registry) {
    metrics =
        new AgentMetrics(
            registry,
            node,
            () -> bgpPeers == null ? List.of() : bgpPeers.getStore().list(),
            () -> nodeBgps == null ? null : nodeBgps.getStore().getByKey(node));
    return metrics;
  }

  /**
   * Ready: every informer has its first list and at the newest pass that got that far the NodeBGP's
   * speaker answered and runs as the NodeBGP says (or this node has no NodeBGP).
   */
  public boolean ready() {
    return ready && lastPassOk;
  }

  /**
   * Runs {@code r} (on the informer's thread: keep it short, hand work off) when a BGPPeer of this
   * node comes, goes or is being deleted; e.g. the pod blocks' advertisements list their targets
   * again. Listeners added after {@link #start} hear the changes from then on.
   */
  public BgpAgent onPeersChanged(Runnable r) {
    peerListeners.add(r);
    return this;
  }

  private void peersChanged() {
    for (Runnable r : peerListeners) {
      try {
        r.run();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "event=peer-listener-failed reason=\"" + e.getMessage() + "\"", e);
      }
    }
  }

  /** Starts the informers (waits for their first list) and the loop. */
  public BgpAgent start() {
    // all three exist before any starts: an event of one triggers a pass that reads the others
    nodeBgps = inform(client.resources(NodeBGP.class).runnableInformer(0));
    bgpPeers =
        inform(
            client
                .resources(BGPPeer.class)
                .withLabel(Sart.BGP_PEER_NODE_LABEL, node)
                .runnableInformer(0));
    bgpPeers.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(BGPPeer p) {
            peersChanged();
          }

          @Override
          public void onUpdate(BGPPeer before, BGPPeer after) {
            if (!java.util.Objects.equals(
                before.getMetadata().getDeletionTimestamp(),
                after.getMetadata().getDeletionTimestamp())) {
              peersChanged();
            }
          }

          @Override
          public void onDelete(BGPPeer p, boolean deletedFinalStateUnknown) {
            peersChanged();
          }
        });
    bgpAdverts =
        inform(client.resources(BGPAdvertisement.class).inAnyNamespace().runnableInformer(0));
    // the three lists and watches at once: one round trip to the API server's time instead of three
    // in a row; no pass runs before all three have their first list (ready, below)
    List<java.util.concurrent.CompletableFuture<Void>> listed =
        informers.stream().map(i -> i.start().toCompletableFuture()).toList();
    listed.forEach(java.util.concurrent.CompletableFuture::join);
    ready = true;
    loop.scheduleWithFixedDelay(
        this::trigger, resync.toMillis(), resync.toMillis(), TimeUnit.MILLISECONDS);
    LOG.info(() -> "event=bgp-agent-started node=" + node);
    trigger();
    return this;
  }

  private <T extends HasMetadata> SharedIndexInformer<T> inform(SharedIndexInformer<T> i) {
    i.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(T obj) {
            trigger();
          }

          @Override
          public void onUpdate(T oldObj, T newObj) {
            trigger();
          }

          @Override
          public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            trigger();
          }
        });
    informers.add(i);
    return i;
  }

  /**
   * A speaker told the peer state watcher that the session with {@code address} changed state
   * (sart's BgpExporterApi): a pass runs at once.
   */
  void exported(String address) {
    trigger();
  }

  /** Asks for a pass; passes asked for while one is queued coalesce. */
  void trigger() {
    if (ready && pending.compareAndSet(false, true) && !loop.isShutdown()) {
      try {
        loop.execute(this::pass);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        pending.set(false);
      }
    }
  }

  private void pass() {
    pending.set(false);
    passes++;
    long start = System.nanoTime();
    boolean ok = false;
    try {
      ok = reconcile();
      // readiness follows the speaker (reached and configured as the NodeBGP says); a pass that
      // failed on a write to the API server is retried and does not make the node unready
      lastPassOk = ok;
      if (!ok) {
        loop.schedule(this::trigger, RETRY.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (RuntimeException e) {
      LOG.log(
          Level.WARNING,
          "event=reconcile-failed node=" + node + " reason=\"" + e.getMessage() + "\"",
          e);
      loop.schedule(this::trigger, RETRY.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      AgentMetrics m = metrics;
      if (m != null) {
        m.passed(Duration.ofNanos(System.nanoTime() - start), ok);
      }
    }
  }

  /** One pass; false when it has to be retried (speaker not ready). */
  private boolean reconcile() {
    NodeBGP nb = nodeBgps.getStore().getByKey(node);
    if (nb == null || nb.getSpec() == null || nb.getSpec().speaker() == null) {
      return true;
    }
    boolean deleting = NodeBgpReconciler.deleting(nb);
    if (nb.getMetadata().getDeletionTimestamp() != null
        && (!deleting || nb.getMetadata().getUid().equals(released))) {
      // released (the cache may still show it with our finalizer): the speaker stays cleared
      return true;
    }
    if (!deleting && !nodeBgp.ensureFinalizer(nb)) {
      LOG.fine(() -> "event=nodebgp-gone-before-held node=" + node);
      return true;
    }
    String endpoint = speakerEndpoint != null ? speakerEndpoint : nb.getSpec().speaker().path();
    if (speaker == null || !speaker.endpoint().equals(endpoint)) {
      closeSpeaker();
      long t =
          nb.getSpec().speaker().timeout() == null || nb.getSpec().speaker().timeout() == 0
              ? 10
              : nb.getSpec().speaker().timeout();
      speaker = new Speaker(endpoint, Duration.ofSeconds(t));
      restarted();
    }
    List<BGPPeer> myPeers = List.copyOf(bgpPeers.getStore().list());
    PeerWatch w = watch;
    boolean lost = false;
    if (w != null && !w.open()) {
      // the stream broke: the speaker stopped or restarted
      nodeBgp.restarted(nb);
      restarted();
      lost = true;
    }
    NodeBgpReconciler.Outcome outcome = nodeBgp.reconcile(nb, speaker);
    if (outcome == NodeBgpReconciler.Outcome.CONFIGURED) {
      restarted();
      lost = true;
    }
    if (lost && !speakerDown) {
      // every session of the old speaker is gone, even if the new one comes up before the stream
      // says so
      peers.speakerDown(myPeers);
      speakerDown = true;
    }
    if (outcome == NodeBgpReconciler.Outcome.UNREACHABLE
        || outcome == NodeBgpReconciler.Outcome.INVALID) {
      if (!speakerDown) {
        peers.speakerDown(myPeers);
        speakerDown = true;
      }
      // adverts: entries of our peers go back to NotAdvertised (no session is Established)
      adverts.reconcileStatusOnly(bgpAdverts.getStore().list(), names(myPeers));
      return false;
    }
    if (watch == null) {
      PeerWatch fresh = new PeerWatch(this::trigger);
      watch = fresh;
      speaker.watchPeerState(fresh);
    }
    speakerDown = false;
    Set<String> mine = names(myPeers);
    List<BGPAdvertisement> all = List.copyOf(bgpAdverts.getStore().list());
    Map<String, Set<String>> targets = ExportPolicies.targets(all, mine);
    // the export policies first: each peer is added with its own, and a prefix is originated only
    // once
    // every peer's policy says whether that peer gets it
    exports.apply(speaker, targets, adverts.originated(speaker), false);
    peers.reconcile(nb, myPeers, speaker, watch);
    if (!deleting) {
      peers.createListed(nb, myPeers);
    }
    PeerWatch current = watch;
    Map<String, String> addrs =
        myPeers.stream()
            .filter(p -> p.getSpec() != null)
            .collect(
                Collectors.toMap(
                    p -> p.getMetadata().getName(), p -> p.getSpec().neighbor(), (a, b) -> a));
    // one view of the sessions for the whole pass: the stream updates them meanwhile, and a peer
    // that became Established after the advertisements were announced must not count as settled
    // below (the restart would end without its paths)
    Map<String, dev.sart.proto.v1.Peer.State> states = new java.util.HashMap<>();
    addrs.values().forEach(a -> states.put(a, current.state(a)));
    adverts.reconcile(
        all,
        mine::contains,
        name ->
            addrs.containsKey(name)
                && states.get(addrs.get(name)) == dev.sart.proto.v1.Peer.State.ESTABLISHED,
        speaker);
    // then again: withdrawn prefixes leave the reject lists, policies of peers gone from the
    // speaker go
    exports.apply(speaker, targets, adverts.originated(speaker), true);
    if (!localPathsComplete && states.values().stream().allMatch(BgpAgent::settled)) {
      // the first full pass since the speaker (re)started with every peer settled: every
      // Service's and block's path is back, so its graceful restart may end (RFC 4724 §4.1:
      // End-of-RIB to the ToRs, which then drop what we did not announce again). Not before: a
      // pass announces an advertisement only to Established peers, and the first pass after a
      // restart usually runs before the sessions are up; an End-of-RIB then would make the ToRs
      // drop the Services' stale paths until the next pass.
      speaker.localPathsComplete();
      localPathsComplete = true;
      LOG.info(() -> "event=local-paths-complete node=" + node);
    }
    if (deleting) {
      release(nb);
    }
    return true;
  }

  /**
   * A peer the restart need not wait for any more: Established (the pass announced to it), or
   * Active (its connect failed: a ToR that is down must not hold the others' End-of-RIB; it gets
   * everything when it comes). Idle, Connect and OpenSent/OpenConfirm are on their way; one stuck
   * there holds the restart until the speaker's selection deferral timer.
   */
  private static boolean settled(dev.sart.proto.v1.Peer.State state) {
    return state == dev.sart.proto.v1.Peer.State.ESTABLISHED
        || state == dev.sart.proto.v1.Peer.State.ACTIVE;
  }

  /**
   * A deleted NodeBGP: held while the speaker has neighbours, else the speaker is cleared and it
   * goes.
   */
  private void release(NodeBGP nb) {
    List<String> holding = nodeBgp.release(nb, speaker);
    if (holding.isEmpty()) {
      released = nb.getMetadata().getUid();
      restarted();
      heldBy = null;
    } else if (!holding.equals(heldBy)) {
      // once per change at INFO: the next BGPPeer deletion (or the resync) asks again
      LOG.info(() -> "event=nodebgp-deletion-held node=" + node + " neighbors=" + holding);
      heldBy = holding;
    }
  }

  private static Set<String> names(List<BGPPeer> ps) {
    return ps.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> p.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  /**
   * The speaker is new to us: what it was given is forgotten and the peer-state stream reopened.
   */
  private void restarted() {
    localPathsComplete = false;
    peers.forget();
    adverts.forget();
    exports.forget();
    watch = null;
  }

  private void closeSpeaker() {
    if (speaker != null) {
      speaker.close();
      speaker = null;
    }
  }

  /** How many passes ran (for tests and metrics). */
  long passes() {
    return passes;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    loop.shutdownNow();
    try {
      loop.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeSpeaker();
  }
}
