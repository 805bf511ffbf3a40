package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;

import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerTemplate;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.Egress;
import dev.sart.crds.NodeBGP;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the scenarios create on the API server and would leave there: on a real API server, which
 * outlives the cluster, the next scenario class would find the last one's ClusterBGPs (more
 * BGPPeers than it expects) and its Services (other addresses than it expects). Taken at the start
 * (the UIDs of what is already there, so that only what came after is removed), removed at the
 * close while the controllers, agents and stand-ins still run: pods and the configuration are
 * deleted as a user would delete them, the kubelet stand-in and the controllers remove what follows
 * from them, and an object whose owners are all gone is deleted here as a garbage collector would
 * (fabric8's mock has none); whatever is still there after 20 s goes with its finalizers stripped,
 * and is named on standard error.
 */
final class ScenarioObjects {
  /** Deleted first, as a user would: what the controllers derive the rest from. */
  private static final List<Class<? extends HasMetadata>> CONFIGURATION =
      List.of(
          Pod.class,
          Service.class,
          Egress.class,
          ClusterBGP.class,
          BGPPeerTemplate.class,
          AddressPool.class,
          BGPPeer.class);

  /** What the controllers, agents and stand-ins make from the configuration. */
  private static final List<Class<? extends HasMetadata>> DERIVED =
      List.of(
          BGPAdvertisement.class,
          NodeBGP.class,
          BlockRequest.class,
          AddressBlock.class,
          Deployment.class,
          EndpointSlice.class);

  private final Set<String> before;

  private ScenarioObjects(Set<String> before) {
    this.before = before;
  }

  /**
   * What is on the server before the scenarios; sart's objects there (an earlier run killed, or a
   * cluster in use) are named on standard error: scenarios that count peers or expect addresses may
   * then fail.
   */
  static ScenarioObjects atStart(KubernetesClient k) {
    var uids = new HashSet<String>();
    var sart = new ArrayList<String>();
    for (var kind : kinds()) {
      for (var o : list(k, kind)) {
        uids.add(o.getMetadata().getUid());
        if (o.getApiVersion().startsWith("sart.terassyi.net/")) {
          sart.add(o.getKind() + " " + o.getMetadata().getName());
        }
      }
    }
    if (!sart.isEmpty()) {
      System.err.println(
          "the API server already holds sart's objects (use a fresh cluster): " + sart);
    }
    return new ScenarioObjects(uids);
  }

  /** Deletes what the scenarios made (see the class comment). */
  void remove(KubernetesClient k) {
    for (var kind : CONFIGURATION) {
      for (var o : ours(k, kind)) {
        if (o.getMetadata().getDeletionTimestamp() == null) {
          delete(k, o);
        }
      }
    }
    try {
      await("the scenarios' objects removed by the controllers")
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> collectGarbage(k).isEmpty());
    } catch (ConditionTimeoutException e) {
      var forced = new ArrayList<String>();
      for (var o : left(k)) {
        forced.add(o.getKind() + " " + o.getMetadata().getName());
        if (!o.getMetadata().getFinalizers().isEmpty()) {
          try {
            k.resource(o).edit(x -> withoutFinalizers(x));
          } catch (KubernetesClientException gone) {
            continue;
          }
        }
        delete(k, o);
      }
      System.err.println("removed without the controllers (after 20 s): " + forced);
    }
  }

  /**
   * Deletes what is left whose owners are all gone, as the garbage collector would (background
   * propagation); returns what is left.
   */
  private List<HasMetadata> collectGarbage(KubernetesClient k) {
    var left = left(k);
    var present = new HashSet<>(before);
    left.forEach(o -> present.add(o.getMetadata().getUid()));
    list(k, Node.class).forEach(o -> present.add(o.getMetadata().getUid()));
    for (var o : left) {
      var owners = o.getMetadata().getOwnerReferences();
      if (o.getMetadata().getDeletionTimestamp() == null
          && !owners.isEmpty()
          && owners.stream().map(OwnerReference::getUid).noneMatch(present::contains)) {
        delete(k, o);
      }
    }
    return left;
  }

  private static <T extends HasMetadata> T withoutFinalizers(T o) {
    o.getMetadata().setFinalizers(List.of());
    return o;
  }

  private List<HasMetadata> left(KubernetesClient k) {
    var l = new ArrayList<HasMetadata>();
    for (var kind : kinds()) {
      l.addAll(ours(k, kind));
    }
    return l;
  }

  private List<? extends HasMetadata> ours(KubernetesClient k, Class<? extends HasMetadata> kind) {
    return list(k, kind).stream().filter(o -> !before.contains(o.getMetadata().getUid())).toList();
  }

  private static List<Class<? extends HasMetadata>> kinds() {
    var all = new ArrayList<Class<? extends HasMetadata>>(CONFIGURATION);
    all.addAll(DERIVED);
    return all;
  }

  private static List<? extends HasMetadata> list(
      KubernetesClient k, Class<? extends HasMetadata> kind) {
    return k.resources(kind).inAnyNamespace().list().getItems();
  }

  private static void delete(KubernetesClient k, HasMetadata o) {
    try {
      k.resource(o).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
