package dev.sart.controller.egress;

import dev.sart.crds.Egress;
import dev.sart.crds.Sart;
import dev.sart.crds.SessionAffinity;
import dev.sart.crds.TunnelMode;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Deployment and the Service an Egress is run as (pure: from the Egress, the image, and whether
 * a gateway pod holds a static address).
 *
 * <p>The pods run {@code sartd egress} in a container named {@code egress} with NET_ADMIN (tunnel
 * devices, routes, nftables in its own network namespace), the pod's name, namespace and address
 * from the downward API. The template's labels and annotations are kept; its pod spec is the base
 * into which the {@code egress} container is merged (the user's resources, other containers,
 * affinity stay). The pods run as the ServiceAccount {@code sart-egress} ({@link EgressAccess})
 * unless the template names one. The Service is a ClusterIP Service on the tunnel's UDP port with
 * {@code sessionAffinity: ClientIP} unless the Egress says None (coil's "session persistence": all
 * packets of a flow go through one gateway). With a static source address the Service selects only
 * the one pod labelled {@link Sart#EGRESS_GATEWAY_LABEL}: the address lives on exactly one gateway.
 */
public final class EgressObjects {
  private EgressObjects() {}

  /** The container the controller owns in each egress pod. */
  public static final String CONTAINER = "egress";

  /** IANA's VXLAN port (RFC 7348 §5). */
  public static final int VXLAN_PORT = 4789;

  /** coil's FoU port. */
  public static final int FOU_PORT = 5555;

  /** The tunnel's UDP port for a mode. */
  public static int port(TunnelMode mode) {
    return mode == TunnelMode.FOU ? FOU_PORT : VXLAN_PORT;
  }

  public static Map<String, String> selector(Egress egress) {
    return Map.of(Sart.EGRESS_NAME_LABEL, egress.getMetadata().getName());
  }

  static OwnerReference owner(Egress egress) {
    return new OwnerReferenceBuilder()
        .withApiVersion(Sart.API_VERSION)
        .withKind("Egress")
        .withName(egress.getMetadata().getName())
        .withUid(egress.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  public static Deployment deployment(Egress egress, String image) {
    var spec = egress.getSpec();
    var template = spec.template();
    var labels = new LinkedHashMap<String, String>();
    var annotations = new LinkedHashMap<String, String>();
    if (template != null && template.metadata() != null) {
      if (template.metadata().labels() != null) {
        labels.putAll(template.metadata().labels());
      }
      if (template.metadata().annotations() != null) {
        annotations.putAll(template.metadata().annotations());
      }
    }
    labels.putAll(selector(egress));
    PodSpec base =
        template != null && template.spec() != null
            ? new PodSpecBuilder(template.spec()).build()
            : new PodSpec();
    var containers = new ArrayList<Container>();
    Container user = null;
    if (base.getContainers() != null) {
      for (var c : base.getContainers()) {
        if (CONTAINER.equals(c.getName())) {
          user = c;
        } else {
          containers.add(c);
        }
      }
    }
    containers.addFirst(container(egress, image, user));
    base.setContainers(containers);
    if (EgressAccess.usesDefault(egress)) {
      // the ServiceAccount the controller makes and binds per namespace (EgressAccess)
      base.setServiceAccountName(EgressAccess.NAME);
    }
    var deployment =
        new DeploymentBuilder()
            .withNewMetadata()
            .withNamespace(egress.getMetadata().getNamespace())
            .withName(egress.getMetadata().getName())
            .withLabels(selector(egress))
            .withOwnerReferences(owner(egress))
            .endMetadata()
            .withNewSpec()
            .withReplicas(spec.replicasOrDefault())
            .withStrategy(spec.strategy())
            .withNewSelector()
            .withMatchLabels(selector(egress))
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .withLabels(labels)
            .withAnnotations(annotations.isEmpty() ? null : annotations)
            .endMetadata()
            .withSpec(base)
            .endTemplate()
            .endSpec()
            .build();
    return deployment;
  }

  private static Container container(Egress egress, String image, Container user) {
    var mode = egress.getSpec().tunnelOrDefault();
    var c = user == null ? new Container() : user;
    c.setName(CONTAINER);
    if (c.getImage() == null) {
      c.setImage(image);
    }
    c.setCommand(List.of("sartd"));
    var args = new ArrayList<String>();
    args.add("egress");
    args.add("--egress");
    args.add(egress.getMetadata().getName());
    args.add("--tunnel");
    // no tunnel: sartd egress probes the kernel and labels its pod with the mode (issue 26); the
    // port stays VXLAN's, so the Service need not know the choice
    var tunnel = egress.getSpec().tunnel();
    args.add(tunnel == null ? "auto" : tunnel == TunnelMode.FOU ? "fou" : "vxlan");
    args.add("--port");
    args.add(Integer.toString(port(mode)));
    if (Boolean.TRUE.equals(egress.getSpec().fouSourcePortAuto())) {
      args.add("--fou-source-port-auto");
    }
    c.setArgs(args);
    var env = new ArrayList<EnvVar>();
    env.add(field("POD_NAME", "metadata.name"));
    env.add(field("POD_NAMESPACE", "metadata.namespace"));
    env.add(field("POD_IP", "status.podIP"));
    if (c.getEnv() != null) {
      c.getEnv().stream()
          .filter(e -> env.stream().noneMatch(o -> o.getName().equals(e.getName())))
          .forEach(env::add);
    }
    c.setEnv(env);
    var port = new ContainerPort();
    port.setName(mode == TunnelMode.FOU ? "fou" : "vxlan");
    port.setProtocol("UDP");
    port.setContainerPort(port(mode));
    c.setPorts(List.of(port));
    c.setSecurityContext(
        new SecurityContextBuilder()
            .withCapabilities(new Capabilities(List.of("NET_ADMIN"), List.of("ALL")))
            .build());
    return c;
  }

  private static EnvVar field(String name, String path) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath(path)
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  /**
   * The Service of the gateways: selects every egress pod, or only the gateway that holds the
   * static address.
   */
  public static Service service(Egress egress, boolean staticAddress) {
    var spec = egress.getSpec();
    var mode = spec.tunnelOrDefault();
    var selector = new LinkedHashMap<String, String>(selector(egress));
    if (staticAddress) {
      selector.put(Sart.EGRESS_GATEWAY_LABEL, "true");
    }
    var affinity = spec.sessionAffinityOrDefault();
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(egress.getMetadata().getNamespace())
        .withName(egress.getMetadata().getName())
        .withLabels(selector(egress))
        .withOwnerReferences(owner(egress))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(selector)
        .addNewPort()
        .withName(mode == TunnelMode.FOU ? "fou" : "vxlan")
        .withProtocol("UDP")
        .withPort(port(mode))
        .withNewTargetPort(port(mode))
        .endPort()
        .withSessionAffinity(affinity == SessionAffinity.NONE ? "None" : "ClientIP")
        .withSessionAffinityConfig(
            affinity == SessionAffinity.NONE ? null : spec.sessionAffinityConfig())
        .endSpec()
        .build();
  }
}
