package dev.sart.controller.egress;

import dev.sart.controller.advert.PeerMaps;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.Egress;
import dev.sart.crds.EgressStatus;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Runs each Egress as a Deployment and a Service of egress pods ({@link EgressObjects}), owned by
 * the Egress (garbage collection removes them with it), and keeps its status ({@code replicas},
 * {@code selector} for the scale subresource). With {@code spec.sourceAddress} it also allocates
 * the static address ({@link SourceAddresses}), gives it to exactly one Ready egress pod (the label
 * {@link Sart#EGRESS_GATEWAY_LABEL}; the label is taken off every other pod before it is put on the
 * new one) and announces it with a BGPAdvertisement ({@code egress-<name>-<address>}, type egress,
 * owned by the Egress) whose {@code status.peers} are the BGPPeers of the gateway's node: when the
 * gateway moves, the old node's peers go to Withdraw and the new node's to NotAdvertised, as for a
 * Service with {@code externalTrafficPolicy: Local}. One work queue, one thread ({@link Loop}): the
 * allocation's memory (the Egresses' status in the cache) has one writer. The pods' ServiceAccount
 * and bindings ({@link EgressAccess}) have a queue of their own, keyed by namespace.
 */
public final class EgressReconciler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EgressReconciler.class.getName());

  /** On the Deployment and Service: the hash of the spec last written, to see a change. */
  static final String SPEC_HASH_ANNOTATION = "egress.sart.terassyi.net/spec-hash";

  /** The image of the egress pods when the Egress's template names none. */
  public static final String IMAGE_ENV = "SART_EGRESS_IMAGE";

  private final Informers informers;
  private final Events events;
  private final Loop loop;
  private final String image;
  private final SharedIndexInformer<Pod> pods;
  private final EgressAccess access;

  /**
   * The status last written per Egress key and the resourceVersion of the cached Egress it was
   * written over. The write's own watch event can come after events it caused (the gateway label on
   * a pod): until the cache moves past that version, the written status is what the Egress holds,
   * else that reconcile would write and report the same change a second time. The loop's thread
   * only.
   */
  private final Map<String, Written> written = new HashMap<>();

  private record Written(String over, EgressStatus status) {}

  public EgressReconciler(Informers informers, Events events, Metrics metrics) {
    this(
        informers,
        events,
        metrics,
        Objects.requireNonNullElse(System.getenv(IMAGE_ENV), "sart:dev"));
  }

  public EgressReconciler(Informers informers, Events events, Metrics metrics, String image) {
    this.informers = informers;
    this.events = events;
    this.image = image;
    this.loop = new Loop("egress", this::reconcile, metrics);
    this.access = new EgressAccess(informers, metrics);
    informers.watch(
        Egress.class,
        e -> {
          loop.enqueue(key(e));
          access.changed(e);
        });
    informers.watch(Deployment.class, d -> byLabel(d));
    informers.watch(
        Service.class,
        s -> {
          byLabel(s);
          byReversePath(s);
        });
    informers.watch(BGPAdvertisement.class, a -> byLabel(a));
    informers.watch(BGPPeer.class, p -> enqueueWithAddress());
    informers.watch(AddressPool.class, p -> enqueueWithAddress());
    // only the egress pods, not every pod of the cluster
    this.pods =
        informers
            .client()
            .pods()
            .inAnyNamespace()
            .withLabel(Sart.EGRESS_NAME_LABEL)
            .runnableInformer(0);
    pods.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            byLabel(pod);
          }

          @Override
          public void onUpdate(Pod old, Pod now) {
            byLabel(now);
          }

          @Override
          public void onDelete(Pod pod, boolean unknown) {
            byLabel(pod);
          }
        });
  }

  private static String key(HasMetadata o) {
    return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  private void byLabel(HasMetadata o) {
    var labels = o.getMetadata().getLabels();
    var name = labels == null ? null : labels.get(Sart.EGRESS_NAME_LABEL);
    if (name != null) {
      loop.enqueue(o.getMetadata().getNamespace() + "/" + name);
    }
  }

  /** The Egresses of the Service's namespace whose reverse path maps a port to it. */
  private void byReversePath(Service s) {
    for (var e : informers.list(Egress.class)) {
      if (e.getSpec() != null
          && e.getSpec().sourceAddress() != null
          && s.getMetadata().getNamespace().equals(e.getMetadata().getNamespace())
          && e.getSpec().sourceAddress().portsOrEmpty().stream()
              .anyMatch(p -> s.getMetadata().getName().equals(p.service()))) {
        loop.enqueue(key(e));
      }
    }
  }

  private void enqueueWithAddress() {
    for (var e : informers.list(Egress.class)) {
      if (e.getSpec() != null && e.getSpec().sourceAddress() != null) {
        loop.enqueue(key(e));
      }
    }
  }

  public void start() throws Exception {
    pods.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    access.start();
    loop.start();
    informers.list(Egress.class).forEach(e -> loop.enqueue(key(e)));
    for (var a : informers.list(BGPAdvertisement.class)) {
      byLabel(a);
    }
  }

  private Duration reconcile(String key) throws Exception {
    var egress = informers.get(Egress.class, key);
    int slash = key.indexOf('/');
    String namespace = key.substring(0, slash);
    String name = key.substring(slash + 1);
    var adverts = adverts(namespace, name);
    if (egress == null
        || egress.getSpec() == null
        || egress.getMetadata().getDeletionTimestamp() != null) {
      // the Deployment and the Service go by garbage collection; the advertisements wait for the
      // agents to withdraw them (their finalizer)
      written.remove(key);
      adverts.forEach(this::withdrawAndDelete);
      return null;
    }
    var spec = egress.getSpec();
    boolean wantsAddress = spec.sourceAddress() != null;
    var deployment = apply(EgressObjects.deployment(egress, image), Deployment.class);
    apply(EgressObjects.service(egress, wantsAddress), Service.class);

    var mine =
        pods.getStore().list().stream()
            .filter(p -> namespace.equals(p.getMetadata().getNamespace()))
            .filter(p -> name.equals(p.getMetadata().getLabels().get(Sart.EGRESS_NAME_LABEL)))
            .toList();
    InetAddress address = null;
    String message = null;
    Pod gateway = null;
    if (wantsAddress) {
      var pool = informers.get(AddressPool.class, spec.sourceAddress().pool());
      var outcome = SourceAddresses.allocate(egress, pool, informers.list(Egress.class));
      address = outcome.address();
      message = outcome.error();
      if (address != null) {
        gateway = Gateways.choose(mine).orElse(null);
        if (gateway == null) {
          message = "no egress pod is Ready to hold " + Ip.format(address);
        }
      }
    }
    label(mine, gateway);
    announce(egress, adverts, address, gateway);
    if (address != null && message == null) {
      message =
          ReversePaths.refused(
              spec.sourceAddress(),
              address,
              n -> informers.get(Service.class, namespace + "/" + n));
    }

    var status =
        new EgressStatus(
            deployment.getStatus() == null || deployment.getStatus().getReplicas() == null
                ? 0
                : deployment.getStatus().getReplicas(),
            Sart.EGRESS_NAME_LABEL + "=" + name,
            address == null ? null : Ip.format(address),
            gateway == null ? null : gateway.getMetadata().getName(),
            gateway == null ? null : gateway.getSpec().getNodeName(),
            message);
    var old = egress.getStatus();
    String version = egress.getMetadata().getResourceVersion();
    var last = written.get(key);
    if (last != null && last.over().equals(version)) {
      old = last.status(); // the cache has not seen the write yet
    } else {
      written.remove(key);
    }
    if (!status.equals(old)) {
      writeStatus(egress, status);
      written.put(key, new Written(version, status));
      report(egress, old, status);
    }
    return null;
  }

  private void report(Egress egress, EgressStatus old, EgressStatus now) {
    String oldAddress = old == null ? null : old.sourceAddress();
    String oldGateway = old == null ? null : old.gateway();
    String oldMessage = old == null ? null : old.message();
    if (now.sourceAddress() != null && !now.sourceAddress().equals(oldAddress)) {
      events.normal(egress, "IPAllocated", "static source address " + now.sourceAddress());
      LOG.info(
          "egress address allocated egress=" + key(egress) + " address=" + now.sourceAddress());
    }
    if (now.gateway() != null && !now.gateway().equals(oldGateway)) {
      events.normal(
          egress,
          "GatewayChanged",
          "pod " + now.gateway() + " on node " + now.gatewayNode() + " holds the source address");
      LOG.info(
          "egress gateway changed egress="
              + key(egress)
              + " pod="
              + now.gateway()
              + " node="
              + now.gatewayNode()
              + " previous="
              + oldGateway);
    }
    if (now.message() != null && !now.message().equals(oldMessage)) {
      events.warning(
          egress,
          now.message().startsWith(ReversePaths.FIELD) ? "ReversePathRefused" : "NoSourceAddress",
          now.message());
    }
  }

  private List<BGPAdvertisement> adverts(String namespace, String name) {
    return informers.list(BGPAdvertisement.class).stream()
        .filter(a -> namespace.equals(a.getMetadata().getNamespace()))
        .filter(
            a ->
                a.getMetadata().getLabels() != null
                    && name.equals(a.getMetadata().getLabels().get(Sart.EGRESS_NAME_LABEL)))
        .toList();
  }

  /** Creates the object, or writes the desired spec when it changed since the last write. */
  private <T extends HasMetadata> T apply(T desired, Class<T> type) throws Exception {
    String hash = hash(specOf(desired));
    var annotations = new HashMap<String, String>();
    annotations.put(SPEC_HASH_ANNOTATION, hash);
    desired.getMetadata().setAnnotations(annotations);
    var existing = informers.get(type, key(desired));
    var client = informers.client();
    if (existing == null) {
      try {
        var created = client.resource(desired).create();
        LOG.info("egress object created kind=" + desired.getKind() + " name=" + key(desired));
        return created;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        existing =
            client
                .resources(type)
                .inNamespace(desired.getMetadata().getNamespace())
                .withName(desired.getMetadata().getName())
                .get();
      }
    }
    var existingAnnotations = existing.getMetadata().getAnnotations();
    if (existingAnnotations != null && hash.equals(existingAnnotations.get(SPEC_HASH_ANNOTATION))) {
      return existing;
    }
    return LockedEdit.edit(
        client,
        client
            .resources(type)
            .inNamespace(desired.getMetadata().getNamespace())
            .withName(desired.getMetadata().getName()),
        current -> {
          var a =
              new HashMap<String, String>(
                  current.getMetadata().getAnnotations() == null
                      ? Map.of()
                      : current.getMetadata().getAnnotations());
          a.put(SPEC_HASH_ANNOTATION, hash);
          current.getMetadata().setAnnotations(a);
          current.getMetadata().setLabels(desired.getMetadata().getLabels());
          current.getMetadata().setOwnerReferences(desired.getMetadata().getOwnerReferences());
          switch (current) {
            case Deployment d -> d.setSpec(((Deployment) desired).getSpec());
            case Service s -> {
              var want = ((Service) desired).getSpec();
              // the cluster IP (allocated by the API server) stays
              want.setClusterIP(s.getSpec().getClusterIP());
              want.setClusterIPs(s.getSpec().getClusterIPs());
              s.setSpec(want);
            }
            default -> throw new IllegalStateException(current.getKind());
          }
          return current;
        });
  }

  private static Object specOf(HasMetadata o) {
    return switch (o) {
      case Deployment d -> d.getSpec();
      case Service s -> s.getSpec();
      default -> throw new IllegalStateException(o.getKind());
    };
  }

  static String hash(Object spec) {
    try {
      var digest = MessageDigest.getInstance("SHA-256");
      var bytes = digest.digest(Serialization.asJson(spec).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(bytes, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The gateway label on {@code gateway} only: first off every other pod, then on it, so that the
   * Service never selects two holders.
   */
  private void label(List<Pod> mine, Pod gateway) {
    var client = informers.client();
    for (var pod : mine) {
      if (Gateways.labelled(pod) && (gateway == null || !sameName(pod, gateway))) {
        LockedEdit.edit(
            client,
            client
                .pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName()),
            p -> {
              var labels = new HashMap<>(p.getMetadata().getLabels());
              labels.remove(Sart.EGRESS_GATEWAY_LABEL);
              p.getMetadata().setLabels(labels);
              return p;
            });
      }
    }
    if (gateway != null && !Gateways.labelled(gateway)) {
      LockedEdit.edit(
          client,
          client
              .pods()
              .inNamespace(gateway.getMetadata().getNamespace())
              .withName(gateway.getMetadata().getName()),
          p -> {
            var labels = new HashMap<>(p.getMetadata().getLabels());
            labels.put(Sart.EGRESS_GATEWAY_LABEL, "true");
            p.getMetadata().setLabels(labels);
            return p;
          });
    }
  }

  private static boolean sameName(Pod a, Pod b) {
    return a.getMetadata().getName().equals(b.getMetadata().getName());
  }

  /** The advertisement name for an Egress's address. */
  public static String advertName(String egress, InetAddress address) {
    return "egress-" + egress + "-" + Ip.format(address).replace('.', '-').replace(':', '-');
  }

  private void announce(
      Egress egress, List<BGPAdvertisement> adverts, InetAddress address, Pod gateway) {
    String wanted = address == null ? null : advertName(egress.getMetadata().getName(), address);
    for (var advert : adverts) {
      if (!advert.getMetadata().getName().equals(wanted)
          || advert.getMetadata().getDeletionTimestamp() != null) {
        withdrawAndDelete(advert);
      }
    }
    if (wanted == null) {
      return;
    }
    var advert =
        adverts.stream()
            .filter(a -> a.getMetadata().getName().equals(wanted))
            .findFirst()
            .orElse(null);
    if (advert == null) {
      advert = create(egress, wanted, address);
    }
    if (advert.getMetadata().getDeletionTimestamp() != null) {
      return; // made again once it is gone
    }
    var targets = new TreeSet<String>();
    if (gateway != null) {
      for (var peer : informers.list(BGPPeer.class)) {
        if (peer.getSpec() != null
            && peer.getMetadata().getDeletionTimestamp() == null
            && gateway.getSpec().getNodeName().equals(peer.getSpec().nodeBGPRef())) {
          targets.add(peer.getMetadata().getName());
        }
      }
    }
    var peers = withoutGonePeers(PeerMaps.next(peers(advert), targets));
    if (!peers.equals(peers(advert))) {
      patchPeers(advert, peers);
    }
  }

  private static Map<String, AdvertiseStatus> peers(BGPAdvertisement advert) {
    var status = advert.getStatus();
    return status == null || status.peers() == null ? Map.of() : new TreeMap<>(status.peers());
  }

  private Map<String, AdvertiseStatus> withoutGonePeers(Map<String, AdvertiseStatus> peers) {
    return PeerMaps.withoutGonePeers(peers, name -> informers.get(BGPPeer.class, name) != null);
  }

  private BGPAdvertisement create(Egress egress, String name, InetAddress address) {
    boolean v4 = address instanceof Inet4Address;
    var advert =
        new BGPAdvertisement(
            egress.getMetadata().getNamespace(),
            name,
            new BGPAdvertisementSpec(
                Ip.format(address) + (v4 ? "/32" : "/128"),
                AddressType.EGRESS,
                v4 ? Protocol.IPV4 : Protocol.IPV6,
                null));
    advert.getMetadata().setLabels(Map.of(Sart.EGRESS_NAME_LABEL, egress.getMetadata().getName()));
    advert.getMetadata().setFinalizers(List.of(Sart.BGP_ADVERTISEMENT_FINALIZER));
    advert.getMetadata().setOwnerReferences(List.of(EgressObjects.owner(egress)));
    try {
      var created = informers.client().resource(advert).create();
      LOG.info(
          "egress advertisement created name=" + key(advert) + " cidr=" + advert.getSpec().cidr());
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

  private void patchPeers(BGPAdvertisement advert, Map<String, AdvertiseStatus> peers) {
    var patch =
        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
            + Serialization.asJson(new BGPAdvertisementStatus(peers))
            + "}]";
    informers
        .client()
        .resource(advert)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch);
  }

  private void withdrawAndDelete(BGPAdvertisement advert) {
    var peers = peers(advert);
    var withdrawn = withoutGonePeers(PeerMaps.next(peers, Set.of()));
    if (!withdrawn.equals(peers)) {
      patchPeers(advert, withdrawn);
      return; // the status change comes back as an event
    }
    var client = informers.client();
    var resource =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace(advert.getMetadata().getNamespace())
            .withName(advert.getMetadata().getName());
    if (!peers.isEmpty()) {
      return; // the agents remove their Withdraw entries
    }
    if (advert.getMetadata().getDeletionTimestamp() == null) {
      resource.delete();
    }
    LockedEdit.edit(
        client,
        resource,
        a -> {
          var finalizers =
              new ArrayList<>(
                  a.getMetadata().getFinalizers() == null
                      ? List.<String>of()
                      : a.getMetadata().getFinalizers());
          finalizers.remove(Sart.BGP_ADVERTISEMENT_FINALIZER);
          a.getMetadata().setFinalizers(finalizers);
          return a;
        });
  }

  private void writeStatus(Egress egress, EgressStatus status) {
    var patch =
        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":" + Serialization.asJson(status) + "}]";
    informers
        .client()
        .resource(egress)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch);
  }

  @Override
  public void close() {
    loop.close();
    access.close();
    pods.close();
  }
}
