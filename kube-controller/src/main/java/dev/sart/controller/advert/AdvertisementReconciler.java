package dev.sart.controller.advert;

import dev.sart.controller.lb.Decisions;
import dev.sart.controller.lb.ServiceViews;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * One BGPAdvertisement per load-balancer address of a Service (in its namespace, named {@code
 * <service>-<address>}, labelled {@code kubernetes.io/service-name}, owned by the Service), whose
 * {@code status.peers} lists the peers that should announce it ({@link Targets}): a new target is
 * {@code NotAdvertised} (the agent announces and marks it {@code Advertised}); a peer that is no
 * longer a target is marked {@code Withdraw} (the agent withdraws and removes the entry). An
 * advertisement to delete first gets every peer marked {@code Withdraw}; its finalizer goes only
 * when the agents have removed every entry.
 *
 * <p>A Service's addresses are taken from the Service reconciler's {@link Decisions} when it has
 * decided them in this term (the advertisement is made while the Service's status is being
 * written), from the Service's status otherwise. The API writes go out through the {@link
 * AdvertisementWriter}, off this reconciler's thread.
 */
public final class AdvertisementReconciler implements AutoCloseable {
  static final String BY_SERVICE = "byService";
  private static final Logger LOG = Logger.getLogger(AdvertisementReconciler.class.getName());

  private final Informers informers;
  private final ServiceViews views;
  private final Decisions decisions;
  private final Loop loop;
  private final AdvertisementWriter writer;
  private final AdvertisementMetrics advertMetrics;

  /** Null: no condition or Events on Services (tests of the advertisements alone). */
  private final Announcements announcements;

  private final Events events;

  /** Per Service key, the annotation problems last reported (one Event per new problem). */
  private final Map<String, List<String>> reported = new HashMap<>();

  /**
   * The nodes labelled {@link Sart#EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL} ({@link Targets}),
   * kept by the Node informer's handler.
   */
  private final Set<String> excludedNodes = ConcurrentHashMap.newKeySet();

  /** Cordoned nodes ({@code spec.unschedulable}) are excluded too; set before {@link #start}. */
  private volatile boolean withdrawFromCordoned;

  public AdvertisementReconciler(Informers informers, String loadBalancerClass, Metrics metrics) {
    this(informers, loadBalancerClass, metrics, null, null);
  }

  /**
   * @param events with it, each Service also gets the {@code sart.terassyi.net/Announced} condition
   *     and Events ({@link Announcements}); null for none
   * @param decisions the Service reconciler's decisions; null to read addresses from Service status
   *     only
   */
  public AdvertisementReconciler(
      Informers informers,
      String loadBalancerClass,
      Metrics metrics,
      Events events,
      Decisions decisions) {
    this.informers = informers;
    this.decisions = decisions;
    this.views = new ServiceViews(loadBalancerClass);
    this.loop = new Loop("bgpadvertisement", this::reconcile, metrics);
    this.writer = new AdvertisementWriter(informers.client(), loop::enqueueAfter);
    this.announcements = events == null ? null : new Announcements(informers.client(), events);
    this.events = events;
    this.advertMetrics = new AdvertisementMetrics(informers, metrics);
    Function<HasMetadata, List<String>> byService =
        o -> {
          var labels = o.getMetadata().getLabels();
          var name = labels == null ? null : labels.get(Sart.SERVICE_NAME_LABEL);
          return name == null ? List.of() : List.of(o.getMetadata().getNamespace() + "/" + name);
        };
    informers.of(EndpointSlice.class).addIndexers(Map.of(BY_SERVICE, byService::apply));
    informers.of(BGPAdvertisement.class).addIndexers(Map.of(BY_SERVICE, byService::apply));
    // first the writer learns what the informer has, then the Service is looked at
    informers
        .of(BGPAdvertisement.class)
        .addEventHandler(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(BGPAdvertisement advert) {
                changed(advert, false);
              }

              @Override
              public void onUpdate(BGPAdvertisement old, BGPAdvertisement now) {
                changed(now, false);
              }

              @Override
              public void onDelete(BGPAdvertisement advert, boolean unknown) {
                changed(advert, true);
              }

              private void changed(BGPAdvertisement advert, boolean gone) {
                writer.seen(advert, gone);
                byService.apply(advert).forEach(loop::enqueue);
              }
            });
    informers.watch(Service.class, s -> loop.enqueue(ServiceViews.key(s)));
    informers.watch(EndpointSlice.class, s -> byService.apply(s).forEach(loop::enqueue));
    informers.watch(BGPPeer.class, p -> enqueueAllWithAddresses());
    informers
        .of(Node.class)
        .addEventHandler(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(Node node) {
                excluded(node.getMetadata().getName(), excludedFromLoadBalancers(node));
              }

              @Override
              public void onUpdate(Node old, Node node) {
                excluded(node.getMetadata().getName(), excludedFromLoadBalancers(node));
              }

              @Override
              public void onDelete(Node node, boolean unknown) {
                excluded(node.getMetadata().getName(), false);
              }
            });
    // a pool's path attributes go into its addresses' advertisements
    informers.watch(AddressPool.class, p -> enqueueAllWithAddresses());
    if (decisions != null) {
      decisions.onChange(loop::enqueue);
    }
  }

  public void start() {
    // from the synced cache, before the first pass: the handler's first events may come later,
    // and an excluded node must not announce in between (a controller that starts or takes over)
    for (var node : informers.list(Node.class)) {
      if (excludedFromLoadBalancers(node)) {
        excludedNodes.add(node.getMetadata().getName());
      }
    }
    loop.start();
    enqueueAllWithAddresses();
  }

  /**
   * The peers of a cordoned node ({@code spec.unschedulable}: {@code kubectl cordon}, {@code
   * drain}) withdraw every Service address too, as with the label; off by default (a cordoned node
   * still forwards). Returns this.
   */
  public AdvertisementReconciler withdrawFromCordoned(boolean on) {
    withdrawFromCordoned = on;
    return this;
  }

  private boolean excludedFromLoadBalancers(Node node) {
    var labels = node.getMetadata().getLabels();
    return labels != null && labels.containsKey(Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL)
        || withdrawFromCordoned
            && node.getSpec() != null
            && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  /** A node's label changed (or it went): every Service's targets are looked at again. */
  private void excluded(String node, boolean excluded) {
    boolean changed = excluded ? excludedNodes.add(node) : excludedNodes.remove(node);
    if (changed) {
      LOG.info(
          "node "
              + (excluded ? "excluded from" : "back in")
              + " external load balancers node="
              + node
              + " (label "
              + Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL
              + (withdrawFromCordoned ? ", or cordoned" : "")
              + ")");
      enqueueAllWithAddresses();
    }
  }

  private void enqueueAllWithAddresses() {
    for (var service : informers.list(Service.class)) {
      if (!addresses(service).isEmpty()) {
        loop.enqueue(ServiceViews.key(service));
      }
    }
    for (var advert : informers.list(BGPAdvertisement.class)) {
      var labels = advert.getMetadata().getLabels();
      if (labels != null && labels.containsKey(Sart.SERVICE_NAME_LABEL)) {
        loop.enqueue(
            advert.getMetadata().getNamespace() + "/" + labels.get(Sart.SERVICE_NAME_LABEL));
      }
    }
  }

  /** A Service's addresses: as decided in this term, else as its status says. */
  private List<InetAddress> addresses(Service service) {
    if (service == null || !views.wanted(service)) {
      return List.of();
    }
    var decided = decisions == null ? null : decisions.get(ServiceViews.key(service));
    return decided != null ? decided : ServiceViews.current(service);
  }

  /**
   * The advertisement name for one address: {@code <service>-<address>} with dots and colons as
   * dashes.
   */
  public static String name(String service, InetAddress address) {
    return service + "-" + Ip.format(address).replace('.', '-').replace(':', '-');
  }

  private Duration reconcile(String key) {
    var service = informers.get(Service.class, key);
    int slash = key.indexOf('/');
    String namespace = key.substring(0, slash);
    String serviceName = key.substring(slash + 1);
    List<InetAddress> addresses = addresses(service);
    var peers = informers.list(BGPPeer.class);
    List<EndpointSlice> slices =
        addresses.isEmpty()
            ? List.of()
            : informers.of(EndpointSlice.class).getIndexer().byIndex(BY_SERVICE, key);

    var existing = new HashMap<String, BGPAdvertisement>();
    for (var advert : informers.of(BGPAdvertisement.class).getIndexer().byIndex(BY_SERVICE, key)) {
      existing.put(advert.getMetadata().getName(), advert);
    }
    var wanted = new LinkedHashMap<String, InetAddress>();
    addresses.forEach(a -> wanted.put(name(serviceName, a), a));
    var uncarried = new ArrayList<InetAddress>();
    var problems = new ArrayList<String>();
    var pools = informers.list(AddressPool.class);

    for (var entry : wanted.entrySet()) {
      var family = entry.getValue() instanceof Inet4Address ? Protocol.IPV4 : Protocol.IPV6;
      boolean carried = Targets.carried(service, peers, family);
      if (!carried) {
        uncarried.add(entry.getValue());
      }
      // the annotation problems of every address, also of one whose write is under way (or the
      // problem would seem gone and be reported again on the next pass)
      var attributes = PathAttributes.of(service, entry.getValue(), pools);
      attributes.problems().stream().filter(p -> !problems.contains(p)).forEach(problems::add);
      var attrs = attributes.attrs().toAttrs();
      var advertKey = namespace + "/" + entry.getKey();
      if (writer.busy(advertKey)) {
        continue; // a write of ours is on its way; its end brings this Service back
      }
      var targets = Targets.of(service, slices, peers, family, excludedNodes);
      // our last write's answer while the informer has not delivered it (the cache is older)
      var advert = writer.newest(advertKey, existing.get(entry.getKey()));
      if (advert == null) {
        // the first peer map is decided once the advertisement exists, on what the informers hold
        // then: an endpoint that came during the create's round trip is in it, without waiting for
        // the informer to deliver the new advertisement and another pass
        writer.create(
            key,
            advertisement(service, entry.getKey(), entry.getValue(), attrs),
            p -> PeerMaps.next(p, targetsNow(key, family, targets)),
            !carried);
        continue;
      }
      if (advert.getMetadata().getDeletionTimestamp() != null) {
        // deleted by someone: withdraw it; once it is gone the next pass creates it again
        writer.withdrawAndDelete(key, advert, this::withdrawn);
        continue;
      }
      if (!attrs(advert.getSpec().attrs()).equals(attrs(attrs))) {
        patchAttrs(advert, attrs);
      }
      var current = AdvertisementWriter.peers(advert);
      if (!withoutGonePeers(PeerMaps.next(current, targets)).equals(current)) {
        writer.setPeers(key, advert, p -> withoutGonePeers(PeerMaps.next(p, targets)));
      }
    }
    for (var advert : existing.values()) {
      var advertKey = AdvertisementWriter.key(advert);
      if (wanted.containsKey(advert.getMetadata().getName()) || writer.busy(advertKey)) {
        continue;
      }
      writer.withdrawAndDelete(key, writer.newest(advertKey, advert), this::withdrawn);
    }
    report(service, key, problems);
    if (announcements != null && service != null && !addresses.isEmpty()) {
      // a condition not yet in the cache is looked at again (and written again if it was lost)
      return announcements.observe(
          service,
          Announcements.of(
              existing.values().stream()
                  .filter(a -> wanted.containsKey(a.getMetadata().getName()))
                  .toList(),
              peers,
              uncarried));
    } else if (announcements != null && service == null) {
      announcements.forget(key);
    }
    return null;
  }

  /**
   * The targets of the Service {@code key}'s address of {@code family} as the informers have them
   * now (called on a writer's thread; the caches are safe to read from any); {@code before} when
   * the Service is gone (the next pass deletes its advertisements).
   */
  private Set<String> targetsNow(String key, Protocol family, Set<String> before) {
    var service = informers.get(Service.class, key);
    if (service == null) {
      return before;
    }
    return Targets.of(
        service,
        informers.of(EndpointSlice.class).getIndexer().byIndex(BY_SERVICE, key),
        informers.list(BGPPeer.class),
        family,
        excludedNodes);
  }

  /** A Warning Event for each annotation problem not reported before. */
  private void report(Service service, String key, List<String> problems) {
    var before = problems.isEmpty() ? reported.remove(key) : reported.put(key, problems);
    if (events == null || service == null) {
      return;
    }
    for (var problem : problems) {
      if (before == null || !before.contains(problem)) {
        events.warning(service, "InvalidAnnotation", problem + " (left out of the advertisement)");
        LOG.warning("invalid annotation service=" + key + " " + problem);
      }
    }
  }

  private static List<String> attrs(List<String> attrs) {
    return attrs == null ? List.of() : attrs;
  }

  /** {@code spec.attrs} (not immutable: the agents announce the prefix again with them). */
  private void patchAttrs(BGPAdvertisement advert, List<String> attrs) {
    var patch =
        attrs == null
            ? "[{\"op\":\"remove\",\"path\":\"/spec/attrs\"}]"
            : "[{\"op\":\"add\",\"path\":\"/spec/attrs\",\"value\":"
                + Serialization.asJson(attrs)
                + "}]";
    informers.client().resource(advert).patch(PatchContext.of(PatchType.JSON), patch);
    LOG.info(
        "advertisement attributes name="
            + advert.getMetadata().getName()
            + " namespace="
            + advert.getMetadata().getNamespace()
            + " attrs="
            + attrs(attrs));
  }

  private Map<String, AdvertiseStatus> withdrawn(Map<String, AdvertiseStatus> peers) {
    return withoutGonePeers(PeerMaps.next(peers, Set.of()));
  }

  private static BGPAdvertisement advertisement(
      Service service, String name, InetAddress address, List<String> attrs) {
    boolean v4 = address instanceof Inet4Address;
    var advert =
        new BGPAdvertisement(
            service.getMetadata().getNamespace(),
            name,
            new BGPAdvertisementSpec(
                Ip.format(address) + (v4 ? "/32" : "/128"),
                AddressType.SERVICE,
                v4 ? Protocol.IPV4 : Protocol.IPV6,
                attrs));
    advert
        .getMetadata()
        .setLabels(Map.of(Sart.SERVICE_NAME_LABEL, service.getMetadata().getName()));
    advert.getMetadata().setFinalizers(List.of(Sart.BGP_ADVERTISEMENT_FINALIZER));
    advert
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("Service")
                    .withName(service.getMetadata().getName())
                    .withUid(service.getMetadata().getUid())
                    .withController(true)
                    .build()));
    return advert;
  }

  /**
   * Without the Withdraw entries of BGPPeers that no longer exist: a BGPPeer is deleted only after
   * its agent took it off the speaker (the agent's finalizer), or, for a Node that is gone, by this
   * controller (ClusterBgpReconciler), whose agent is gone too; nobody else would remove them.
   */
  private Map<String, AdvertiseStatus> withoutGonePeers(Map<String, AdvertiseStatus> peers) {
    return PeerMaps.withoutGonePeers(peers, name -> informers.get(BGPPeer.class, name) != null);
  }

  /** Keys waiting and advertisement writes under way (for tests and the benchmark). */
  public int pending() {
    return loop.pending() + writer.pending();
  }

  @Override
  public void close() {
    loop.close();
    writer.close();
    if (announcements != null) {
      announcements.close();
    }
    advertMetrics.close();
  }
}
