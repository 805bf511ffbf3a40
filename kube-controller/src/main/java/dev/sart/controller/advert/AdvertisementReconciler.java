package dev.sart.controller.advert;

import dev.sart.controller.lb.ServiceViews;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 */
public final class AdvertisementReconciler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AdvertisementReconciler.class.getName());
  static final String BY_SERVICE = "byService";

  private final Informers informers;
  private final ServiceViews views;
  private final Loop loop;
  private final Metrics metrics;
  private final List<io.micrometer.core.instrument.Meter> meters = new java.util.ArrayList<>();

  /**
   * Per advertisement ({@code namespace/name}): how often a peer's entry fell back from Advertised
   * to NotAdvertised.
   */
  private final Map<String, java.util.concurrent.atomic.AtomicLong> backoffs =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final java.util.function.Consumer<StringBuilder> section = this::scrape;

  /** Null: no condition or Events on Services (tests of the advertisements alone). */
  private final Announcements announcements;

  public AdvertisementReconciler(Informers informers, String loadBalancerClass, Metrics metrics) {
    this(informers, loadBalancerClass, metrics, null);
  }

  /**
   * With {@code events}: each Service also gets the {@code sart.terassyi.net/Announced} condition
   * and Events ({@link Announcements}).
   */
  public AdvertisementReconciler(
      Informers informers,
      String loadBalancerClass,
      Metrics metrics,
      dev.sart.controller.runtime.Events events) {
    this.announcements = events == null ? null : new Announcements(informers.client(), events);
    this.informers = informers;
    this.metrics = metrics;
    // sart's sart_controller_bgp_advertisements{type}
    for (var type : AddressType.values()) {
      var label = type == AddressType.SERVICE ? "service" : "pod";
      meters.add(
          io.micrometer.core.instrument.Gauge.builder(
                  "sart.controller.bgp.advertisements",
                  informers,
                  i ->
                      i.list(BGPAdvertisement.class).stream()
                          .filter(a -> a.getSpec() != null && a.getSpec().type() == type)
                          .count())
              .tag("type", label)
              .description("BGPAdvertisements")
              .register(metrics.registry()));
    }
    this.views = new ServiceViews(loadBalancerClass);
    this.loop = new Loop("bgpadvertisement", this::reconcile, metrics);
    Function<io.fabric8.kubernetes.api.model.HasMetadata, List<String>> byService =
        o -> {
          var labels = o.getMetadata().getLabels();
          var name = labels == null ? null : labels.get(Sart.SERVICE_NAME_LABEL);
          return name == null ? List.of() : List.of(o.getMetadata().getNamespace() + "/" + name);
        };
    informers.of(EndpointSlice.class).addIndexers(Map.of(BY_SERVICE, byService::apply));
    informers.of(BGPAdvertisement.class).addIndexers(Map.of(BY_SERVICE, byService::apply));
    informers.watch(Service.class, s -> loop.enqueue(ServiceViews.key(s)));
    informers.watch(EndpointSlice.class, s -> byService.apply(s).forEach(loop::enqueue));
    informers.watch(BGPAdvertisement.class, a -> byService.apply(a).forEach(loop::enqueue));
    informers.watch(BGPPeer.class, p -> enqueueAllWithAddresses());
    informers
        .of(BGPAdvertisement.class)
        .addEventHandler(
            new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
              @Override
              public void onAdd(BGPAdvertisement advert) {}

              @Override
              public void onUpdate(BGPAdvertisement old, BGPAdvertisement now) {
                long resets = backoffs(peers(old), peers(now));
                if (resets > 0) {
                  backoffs
                      .computeIfAbsent(key(now), k -> new java.util.concurrent.atomic.AtomicLong())
                      .addAndGet(resets);
                }
              }

              @Override
              public void onDelete(BGPAdvertisement advert, boolean unknown) {
                backoffs.remove(key(advert));
              }
            });
    metrics.addSection(section);
  }

  private static String key(BGPAdvertisement advert) {
    return advert.getMetadata().getNamespace() + "/" + advert.getMetadata().getName();
  }

  /**
   * Peers whose entry went from Advertised back to NotAdvertised: what sart's agent does when a
   * speaker restarted or a session left Established (the route has to be announced again).
   */
  static long backoffs(Map<String, AdvertiseStatus> before, Map<String, AdvertiseStatus> after) {
    return after.entrySet().stream()
        .filter(
            e ->
                e.getValue() == AdvertiseStatus.NotAdvertised
                    && before.get(e.getKey()) == AdvertiseStatus.Advertised)
        .count();
  }

  /**
   * sart's {@code sart_controller_bgp_advertisement_status{name,status}} (peers of each
   * advertisement in each state, from the cache at scrape time) and {@code
   * sart_controller_bgp_advertisement_backoff_count{name}} (which sart declares but never counts),
   * both with a {@code namespace} label as well since advertisements of different namespaces can
   * share a name.
   */
  private void scrape(StringBuilder text) {
    text.append(
            "# HELP sart_controller_bgp_advertisement_status peers of a BGPAdvertisement in each state\n")
        .append("# TYPE sart_controller_bgp_advertisement_status gauge\n");
    for (var advert : informers.list(BGPAdvertisement.class)) {
      var counts = new java.util.EnumMap<AdvertiseStatus, Integer>(AdvertiseStatus.class);
      for (var state : AdvertiseStatus.values()) {
        counts.put(state, 0);
      }
      peers(advert).values().forEach(state -> counts.merge(state, 1, Integer::sum));
      var labels =
          "name=\""
              + Metrics.label(advert.getMetadata().getName())
              + "\",namespace=\""
              + Metrics.label(String.valueOf(advert.getMetadata().getNamespace()))
              + "\"";
      counts.forEach(
          (state, n) ->
              text.append("sart_controller_bgp_advertisement_status{")
                  .append(labels)
                  .append(",status=\"")
                  .append(state.name())
                  .append("\"} ")
                  .append(n)
                  .append('\n'));
    }
    text.append(
            "# HELP sart_controller_bgp_advertisement_backoff_count peer entries of a BGPAdvertisement set back from Advertised to NotAdvertised\n")
        .append("# TYPE sart_controller_bgp_advertisement_backoff_count counter\n");
    backoffs.forEach(
        (key, n) -> {
          int slash = key.indexOf('/');
          text.append("sart_controller_bgp_advertisement_backoff_count{name=\"")
              .append(Metrics.label(key.substring(slash + 1)))
              .append("\",namespace=\"")
              .append(Metrics.label(key.substring(0, slash)))
              .append("\"} ")
              .append(n.get())
              .append('\n');
        });
  }

  public void start() {
    loop.start();
    enqueueAllWithAddresses();
  }

  private void enqueueAllWithAddresses() {
    for (var service : informers.list(Service.class)) {
      if (!ServiceViews.current(service).isEmpty()) {
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
    List<InetAddress> addresses =
        service != null && views.wanted(service) ? ServiceViews.current(service) : List.of();

    Set<String> targets = Set.of();
    if (!addresses.isEmpty()) {
      List<EndpointSlice> slices =
          informers.of(EndpointSlice.class).getIndexer().byIndex(BY_SERVICE, key);
      targets = Targets.of(service, slices, informers.list(BGPPeer.class));
    }
    var existing = new HashMap<String, BGPAdvertisement>();
    for (var advert : informers.of(BGPAdvertisement.class).getIndexer().byIndex(BY_SERVICE, key)) {
      existing.put(advert.getMetadata().getName(), advert);
    }
    var wanted = new LinkedHashMap<String, InetAddress>();
    addresses.forEach(a -> wanted.put(name(serviceName, a), a));

    for (var entry : wanted.entrySet()) {
      var advert = existing.get(entry.getKey());
      if (advert == null) {
        advert = create(service, entry.getKey(), entry.getValue());
      }
      if (advert.getMetadata().getDeletionTimestamp() != null) {
        // deleted by someone: withdraw it; once it is gone the next pass creates it again
        withdrawAndDelete(advert);
        continue;
      }
      var peers = withoutGonePeers(next(peers(advert), targets));
      if (!peers.equals(peers(advert))) {
        patchStatus(advert, peers);
      }
    }
    for (var advert : existing.values()) {
      if (wanted.containsKey(advert.getMetadata().getName())) {
        continue;
      }
      withdrawAndDelete(advert);
    }
    if (announcements != null && !addresses.isEmpty()) {
      announcements.observe(
          service,
          Announcements.of(
              existing.values().stream()
                  .filter(a -> wanted.containsKey(a.getMetadata().getName()))
                  .toList(),
              informers.list(BGPPeer.class)));
    }
    return null;
  }

  /** The next peer map: targets announced (Withdraw or new → NotAdvertised), others withdrawn. */
  static Map<String, AdvertiseStatus> next(
      Map<String, AdvertiseStatus> current, Set<String> targets) {
    var next = new TreeMap<String, AdvertiseStatus>(current);
    for (var target : targets) {
      var state = next.get(target);
      if (state == null || state == AdvertiseStatus.Withdraw) {
        next.put(target, AdvertiseStatus.NotAdvertised);
      }
    }
    for (var entry : next.entrySet()) {
      if (!targets.contains(entry.getKey())) {
        entry.setValue(AdvertiseStatus.Withdraw);
      }
    }
    return next;
  }

  private static Map<String, AdvertiseStatus> peers(BGPAdvertisement advert) {
    var status = advert.getStatus();
    return status == null || status.peers() == null ? Map.of() : new TreeMap<>(status.peers());
  }

  private BGPAdvertisement create(Service service, String name, InetAddress address) {
    boolean v4 = address instanceof Inet4Address;
    var advert =
        new BGPAdvertisement(
            service.getMetadata().getNamespace(),
            name,
            new BGPAdvertisementSpec(
                Ip.format(address) + (v4 ? "/32" : "/128"),
                AddressType.SERVICE,
                v4 ? Protocol.IPV4 : Protocol.IPV6,
                null));
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
    try {
      var created = informers.client().resource(advert).create();
      LOG.info(
          "advertisement created name="
              + name
              + " namespace="
              + advert.getMetadata().getNamespace()
              + " cidr="
              + advert.getSpec().cidr());
      return created;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return informers
            .client()
            .resources(BGPAdvertisement.class)
            .inNamespace(advert.getMetadata().getNamespace())
            .withName(name)
            .get();
      }
      throw e;
    }
  }

  /**
   * Without the Withdraw entries of BGPPeers that no longer exist: a BGPPeer is deleted only after
   * its agent took it off the speaker (the agent's finalizer), or, for a Node that is gone, by this
   * controller (ClusterBgpReconciler), whose agent is gone too; nobody else would remove them.
   */
  private Map<String, AdvertiseStatus> withoutGonePeers(Map<String, AdvertiseStatus> peers) {
    var out = new TreeMap<String, AdvertiseStatus>(peers);
    out.entrySet()
        .removeIf(
            e ->
                e.getValue() == AdvertiseStatus.Withdraw
                    && informers.get(BGPPeer.class, e.getKey()) == null);
    return out;
  }

  private void patchStatus(BGPAdvertisement advert, Map<String, AdvertiseStatus> peers) {
    // the whole map (a JSON patch adding /status replaces it): a merge patch cannot remove an
    // entry on fabric8's mock server, which keeps the nulls
    var patch =
        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
            + Serialization.asJson(new BGPAdvertisementStatus(peers))
            + "}]";
    // resource(advert), not withName(...): a patch by name first GETs the object (one more round
    // trip)
    informers
        .client()
        .resource(advert)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch);
  }

  private void withdrawAndDelete(BGPAdvertisement advert) {
    var peers = peers(advert);
    var withdrawn = withoutGonePeers(next(peers, Set.of()));
    if (!withdrawn.equals(peers)) {
      patchStatus(advert, withdrawn);
      return; // the status change comes back as an event
    }
    var resource =
        informers
            .client()
            .resources(BGPAdvertisement.class)
            .inNamespace(advert.getMetadata().getNamespace())
            .withName(advert.getMetadata().getName());
    if (advert.getMetadata().getDeletionTimestamp() == null) {
      resource.delete();
      return;
    }
    if (withdrawn.isEmpty()
        && advert.getMetadata().getFinalizers() != null
        && advert.getMetadata().getFinalizers().contains(Sart.BGP_ADVERTISEMENT_FINALIZER)) {
      LockedEdit.edit(
          informers.client(),
          resource,
          a -> {
            a.getMetadata().getFinalizers().remove(Sart.BGP_ADVERTISEMENT_FINALIZER);
            return a;
          });
      LOG.info("advertisement withdrawn and released name=" + advert.getMetadata().getName());
    }
  }

  /** Keys waiting (for tests and the benchmark). */
  public int pending() {
    return loop.pending();
  }

  @Override
  public void close() {
    loop.close();
    meters.forEach(metrics.registry()::remove);
    metrics.removeSection(section);
  }
}
