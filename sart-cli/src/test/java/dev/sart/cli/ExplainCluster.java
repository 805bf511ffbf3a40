package dev.sart.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.BGPPeerStatus;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPCondition;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.NodeBGPStatus;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.testbed.mockapi.MockApi;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A cluster for {@code sart explain}: fabric8's mock API server in CRUD mode holding the objects
 * the controller and the agents would have written, a kubeconfig pointing at it, and the CLI run
 * against it.
 */
final class ExplainCluster implements AutoCloseable {
  final KubernetesMockServer server;
  final KubernetesClient client;
  final Path kubeconfig;
  final List<String> speakerOverrides = new ArrayList<>();

  ExplainCluster() throws Exception {
    server = MockApi.withSartCrds();
    client = server.createClient();
    kubeconfig =
        MockKubeconfig.write(
            Files.createTempFile("explain", ".kubeconfig"), client.getConfiguration());
  }

  @Override
  public void close() throws Exception {
    client.close();
    server.destroy();
    Files.deleteIfExists(kubeconfig);
  }

  record Run(int code, String out, String err) {
    JsonNode json() throws Exception {
      return new ObjectMapper().readTree(out);
    }
  }

  /** {@code sart explain ARGS} against this cluster, the speakers overridden as added. */
  Run explain(String... args) {
    List<String> all = new ArrayList<>(List.of("explain", "--kubeconfig", kubeconfig.toString()));
    for (String o : speakerOverrides) {
      all.add("--speaker");
      all.add(o);
    }
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        dev.sart.cli.Sart.run(
            all.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  // --- objects as the user, the controller and the agents write them

  AddressPool pool(String name, String cidr, boolean autoAssign) {
    return client
        .resource(
            new AddressPool(name, new AddressPoolSpec(cidr, AddressType.SERVICE, null, autoAssign)))
        .create();
  }

  Service service(String name, String etp, Map<String, String> annotations, String... ingress) {
    var s =
        KubeObjects.lbService("default", name, annotations)
            .editSpec()
            .withExternalTrafficPolicy(etp)
            .endSpec()
            .build();
    var created = client.resource(s).create();
    if (ingress.length > 0) {
      created.setStatus(
          new io.fabric8.kubernetes.api.model.ServiceStatusBuilder()
              .withNewLoadBalancer()
              .withIngress(
                  java.util.Arrays.stream(ingress)
                      .map(ip -> new LoadBalancerIngressBuilder().withIp(ip).build())
                      .toList())
              .endLoadBalancer()
              .build());
      created = client.resource(created).updateStatus();
    }
    return created;
  }

  /** The EndpointSlice controller's slice: one endpoint per (node, ready). */
  void endpoints(String service, String node, boolean ready) {
    client
        .resource(
            KubeObjects.slice(
                "default",
                service,
                service + "-" + node,
                List.of(KubeObjects.endpoint("10.244.0.10", node, ready, false))))
        .create();
  }

  /** The ClusterBGP reconciler's NodeBGP, with the agent's condition. */
  void nodeBgp(String node, String speakerPath) {
    nodeBgp(node, speakerPath, 65001L, "192.0.2.1");
  }

  void nodeBgp(String node, String speakerPath, long asn, String routerId) {
    var nb =
        client
            .resource(
                new NodeBGP(
                    node,
                    new NodeBGPSpec(
                        asn, routerId, new SpeakerConfig(speakerPath, null, null), null)))
            .create();
    nb.setStatus(
        new NodeBGPStatus(
            0L,
            null,
            List.of(
                new NodeBGPCondition(
                    NodeBGPCondition.Status.Available, NodeBGPCondition.Reason.Configured))));
    client.resource(nb).updateStatus();
  }

  String peer(String node, String addr, BGPPeerCondition.Status state) {
    var created = client.resource(ControllerObjects.peer(node, 65000L, addr, null)).create();
    created.setStatus(new BGPPeerStatus(0L, List.of(new BGPPeerCondition(state, "reported"))));
    client.resource(created).updateStatus();
    return created.getMetadata().getName();
  }

  /** The controller's advertisement, with the agents' entries. */
  void advertisement(String service, String ip, Map<String, AdvertiseStatus> peers) {
    var a =
        new BGPAdvertisement(
            "default",
            service + "-" + ip.replace('.', '-'),
            new BGPAdvertisementSpec(ip + "/32", AddressType.SERVICE, Protocol.IPV4, null));
    a.getMetadata().setLabels(Map.of(Sart.SERVICE_NAME_LABEL, service));
    var created = client.resource(a).create();
    created.setStatus(new BGPAdvertisementStatus(peers));
    client.resource(created).updateStatus();
  }
}
