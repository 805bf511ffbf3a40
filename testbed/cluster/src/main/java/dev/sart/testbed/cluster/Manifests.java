package dev.sart.testbed.cluster;

import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerTemplate;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.NodeBGP;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a user applies: YAML manifests of sart's kinds ({@code kubectl apply -f}), and the Pods and
 * Services of the scenarios' workloads.
 */
public final class Manifests {
  private Manifests() {}

  private static final Map<String, Class<? extends HasMetadata>> SART_KINDS =
      Map.of(
          "AddressPool", AddressPool.class,
          "AddressBlock", AddressBlock.class,
          "BlockRequest", BlockRequest.class,
          "ClusterBGP", ClusterBGP.class,
          "NodeBGP", NodeBGP.class,
          "BGPPeer", BGPPeer.class,
          "BGPPeerTemplate", BGPPeerTemplate.class,
          "BGPAdvertisement", BGPAdvertisement.class);

  /** Creates or updates every object of a multi-document YAML text; returns them. */
  public static List<HasMetadata> apply(KubernetesClient client, String yaml) {
    List<HasMetadata> out = new ArrayList<>();
    for (String doc : yaml.split("(?m)^---\\s*$")) {
      if (doc.isBlank()) {
        continue;
      }
      var kind = doc.lines().filter(l -> l.startsWith("kind:")).findFirst().orElseThrow();
      Class<? extends HasMetadata> type = SART_KINDS.get(kind.substring(5).strip());
      HasMetadata o =
          type != null ? Serialization.unmarshal(doc, type) : Serialization.unmarshal(doc);
      out.add(client.resource(o).createOr(NonDeletingOperation::update));
    }
    return out;
  }

  /**
   * A Pod bound to {@code node} (as the scheduler would bind it) running the stand-in's HTTP server
   * on 8080; {@code preStopSeconds} > 0 keeps it serving that long once deleted.
   */
  public static Pod pod(
      String namespace, String name, String node, Map<String, String> labels, int preStopSeconds) {
    var b =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .withTerminationGracePeriodSeconds(30L)
            // nothing in the pod talks to the API server (and a bare API server has no token
            // controller)
            .withAutomountServiceAccountToken(false)
            .addNewContainer()
            .withName("http")
            .withImage("testbed.sart.dev/pod-name-http:stand-in")
            .addNewPort()
            .withContainerPort(KubeletStandIn.HTTP_PORT)
            .withName("http")
            .endPort();
    if (preStopSeconds > 0) {
      b =
          b.withNewLifecycle()
              .withNewPreStop()
              .withNewSleep((long) preStopSeconds)
              .endPreStop()
              .endLifecycle();
    }
    return b.endContainer().endSpec().build();
  }

  /** A LoadBalancer Service on port 80 to the pods' 8080. */
  public static Service loadBalancer(
      String namespace,
      String name,
      Map<String, String> selector,
      String externalTrafficPolicy,
      Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy(externalTrafficPolicy)
        .withSelector(selector)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .withTargetPort(new IntOrString(KubeletStandIn.HTTP_PORT))
        .endPort()
        .endSpec()
        .build();
  }

  /** A Service of the default type (ClusterIP) on port 80 to the pods' 8080. */
  public static Service clusterIp(String namespace, String name, Map<String, String> selector) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(selector)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .withTargetPort(new IntOrString(KubeletStandIn.HTTP_PORT))
        .endPort()
        .endSpec()
        .build();
  }
}
