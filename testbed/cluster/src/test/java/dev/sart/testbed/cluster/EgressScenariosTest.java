package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.Scenarios.awaitPodsReady;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.Egress;
import dev.sart.crds.EgressSpec;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.fib.netlink.Netns;
import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Egress NAT gateways with a static source address on the cluster on one machine: the controllers
 * make the Egress's Deployment and Service and pick the gateway, the nodes' agents set up the
 * opted-in client pods and announce the address from the gateway's node, FRR routes it there, and
 * {@code sartd egress} runs in each egress pod. The server is the cluster's client namespace behind
 * the ToRs ("outside"); it reports the source address it sees.
 *
 * <p>What the test plays besides the cluster's own stand-ins: the ReplicaSet controller (it makes
 * the two egress pods from the Deployment), and it starts {@code sartd egress} in the egress pods
 * (the kubelet stand-in runs its HTTP container, not the Deployment's).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EgressScenariosTest {
  static final String NS = "internet-egress";
  static final String APPS = "apps";
  static final String ADDRESS = "198.51.100.249"; // first usable of the egress pool
  static final int PORT = 7000;
  static final Map<String, String> GATEWAYS = Map.of(Sart.EGRESS_NAME_LABEL, "nat");

  @RegisterExtension static final SharedCluster SHARED = new SharedCluster();

  static Cluster cluster;
  static KubernetesClient client;
  static ServerSocket server;
  static final Map<String, ManagedProcess> egressProcesses = new HashMap<>();
  static final Map<String, AutoCloseable> relays = new HashMap<>();

  @BeforeAll
  static void up() throws Exception {
    cluster = SHARED.start("EgressScenariosTest", Cluster.Options.defaults());
    client = cluster.client();
    // the outside server: answers each connection with the address it came from
    try (var ns = Netns.named(cluster.clientNode().netns())) {
      server =
          ns.run(
              () -> {
                var s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getByName(Cluster.CLIENT_ADDRESS), PORT));
                return s;
              });
    }
    Thread.ofVirtual()
        .start(
            () -> {
              while (!server.isClosed()) {
                try (Socket c = server.accept()) {
                  c.getOutputStream()
                      .write(
                          (c.getInetAddress().getHostAddress() + "\n")
                              .getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                  // closed
                }
              }
            });
  }

  @AfterAll
  static void down() throws Exception {
    if (server != null) {
      server.close();
    }
    for (AutoCloseable r : relays.values()) {
      r.close();
    }
    SHARED.close();
  }

  /** The source address the outside server sees for a connection from {@code netns}. */
  static String seenFrom(String netns) throws IOException {
    try (var ns = Netns.named(netns);
        Socket s =
            ns.run(
                () -> {
                  var c = new Socket();
                  c.connect(
                      new InetSocketAddress(InetAddress.getByName(Cluster.CLIENT_ADDRESS), PORT),
                      2000);
                  c.setSoTimeout(2000);
                  return c;
                })) {
      return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
          .readLine();
    }
  }

  static void setDestinations(String... cidrs) {
    LockedEdit.edit(
        client,
        client.resources(Egress.class).inNamespace(NS).withName("nat"),
        e -> {
          var x = e.getSpec();
          e.setSpec(
              new EgressSpec(
                  List.of(cidrs),
                  x.replicas(),
                  x.strategy(),
                  x.template(),
                  x.sessionAffinity(),
                  x.sessionAffinityConfig(),
                  x.fouSourcePortAuto(),
                  x.tunnel(),
                  x.sourceAddress()));
          return e;
        });
  }

  static Egress egress() {
    return client.resources(Egress.class).inNamespace(NS).withName("nat").get();
  }

  static Set<String> torHops(Frr tor) {
    return Cluster.fibNextHops(tor, ADDRESS + "/32");
  }

  static ClusterNode nodeNamed(String name) {
    return cluster.node(name);
  }

  static Node podNetns(String namespace, String name) {
    return cluster.pod(namespace, name).orElseThrow().netns();
  }

  /** {@code sartd egress} in an egress pod, as the Deployment's container runs it. */
  static void startSartdEgress(String pod) {
    Node ns = podNetns(NS, pod);
    var relay = HostRelay.open(ns, cluster.api().address().getPort(), cluster.api().address());
    var kubeconfig = cluster.api().kubeconfigThroughRelay(ns.dir().resolve("kubeconfig"));
    var p =
        ns.spawn(
            "sartd-egress",
            List.of(
                Launch.java(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xmx128m",
                Launch.classpathArgument(),
                "dev.sart.sartd.Sartd",
                "egress",
                "--egress",
                "nat",
                "--kubeconfig",
                kubeconfig.toString()),
            Map.of("POD_NAME", pod, "POD_NAMESPACE", NS));
    egressProcesses.put(pod, p);
    relays.put(pod, relay);
  }

  @Test
  @Order(1)
  void anEgressWithAStaticAddressIsRunAndAnnouncedFromItsGatewaysNode() throws Exception {
    SHARED.begin();
    Manifests.apply(client, Scenarios.CLUSTER_BGP + "---\n" + Scenarios.POD_POOL);
    Scenarios.awaitPeersEstablished(cluster);
    cluster.ensureNamespace(NS, Map.of());
    cluster.ensureNamespace(APPS, Map.of());
    Manifests.apply(
        client,
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata:
          name: egress-pool
        spec:
          cidr: 198.51.100.248/29
          type: egress
          allowedNamespaces: [internet-egress]
        ---
        apiVersion: sart.terassyi.net/v1alpha2
        kind: Egress
        metadata:
          name: nat
          namespace: internet-egress
        spec:
          destinations: [203.0.113.100/32]
          replicas: 2
          sourceAddress:
            pool: egress-pool
            ports:
              - {port: 8080, service: web}
        """);
    await("the Egress's Service")
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.services().inNamespace(NS).withName("nat").get() != null);
    assertTrue(client.apps().deployments().inNamespace(NS).withName("nat").get() != null);
    // the pods' identity comes from the install: the controller's ServiceAccount and bindings
    // (the stand-in pods below still talk to the mock API server with the test bed's kubeconfig)
    assertEquals(
        "sart-egress",
        client
            .apps()
            .deployments()
            .inNamespace(NS)
            .withName("nat")
            .get()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getServiceAccountName());
    await("the egress pods' ServiceAccount and bindings")
        .atMost(Duration.ofSeconds(30))
        .until(() -> egressAccess() == 3);
    // its ClusterIP comes from the API server (the cluster's stand-in on the mock)
    await("the Egress's Service has a ClusterIP")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              var spec = client.services().inNamespace(NS).withName("nat").get().getSpec();
              return spec.getClusterIP() != null && !spec.getClusterIP().isEmpty();
            });
    client
        .resource(
            KubeObjects.service(NS, "web", Map.of("app", "web"), 8080)
                .editSpec()
                .editFirstPort()
                .withNewTargetPort(KubeletStandIn.HTTP_PORT)
                .endPort()
                .endSpec()
                .build())
        .create();
    client.resource(Manifests.pod(NS, "web", "node3", Map.of("app", "web"), 0)).create();
    // the ReplicaSet controller's part: the Deployment's two pods, on node1 and node2
    client.resource(Manifests.pod(NS, "nat-1", "node1", GATEWAYS, 0)).create();
    client.resource(Manifests.pod(NS, "nat-2", "node2", GATEWAYS, 0)).create();
    awaitPodsReady(cluster, NS, GATEWAYS, 2);
    awaitPodsReady(cluster, NS, Map.of("app", "web"), 1);
    startSartdEgress("nat-1");
    startSartdEgress("nat-2");

    await("a gateway holds the address")
        .atMost(Duration.ofSeconds(30))
        .until(() -> egress().getStatus() != null && egress().getStatus().gateway() != null);
    // the Egress has no tunnel: each sartd egress probed its kernel and labels the mode it runs
    await("each egress pod labels its tunnel mode (auto: VXLAN on this kernel)")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                List.of("nat-1", "nat-2").stream()
                    .allMatch(
                        p ->
                            "vxlan"
                                .equals(
                                    client
                                        .pods()
                                        .inNamespace(NS)
                                        .withName(p)
                                        .get()
                                        .getMetadata()
                                        .getLabels()
                                        .get(Sart.EGRESS_TUNNEL_LABEL))));
    var status = egress().getStatus();
    assertEquals(ADDRESS, status.sourceAddress());
    var node = nodeNamed(status.gatewayNode());
    await("both ToRs route the address to the gateway's node")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                torHops(cluster.tors().get(0)).equals(Set.of(node.internalIp()))
                    && torHops(cluster.tors().get(1)).equals(Set.of(node.addressB())));
    SHARED.end("egress: Egress, gateway, announcement");
  }

  @Test
  @Order(2)
  void anOptedInPodIsSeenAsTheStaticAddressAndOthersAsThemselves() throws Exception {
    SHARED.begin();
    var annotated = Manifests.pod(APPS, "client", "node3", Map.of("app", "client"), 0);
    annotated.getMetadata().setAnnotations(Map.of(Sart.EGRESS_ANNOTATION_PREFIX + NS, "nat"));
    client.resource(annotated).create();
    client.resource(Manifests.pod(APPS, "plain", "node3", Map.of("app", "plain"), 0)).create();
    awaitPodsReady(cluster, APPS, Map.of("app", "client"), 1);
    awaitPodsReady(cluster, APPS, Map.of("app", "plain"), 1);
    String clientNs = podNetns(APPS, "client").netns();
    await("the client pod goes out as the static address")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .until(() -> ADDRESS.equals(seenFrom(clientNs)));
    String plainIp = client.pods().inNamespace(APPS).withName("plain").get().getStatus().getPodIP();
    assertEquals(plainIp, seenFrom(podNetns(APPS, "plain").netns()), "a pod not opted in");

    // a destination outside the Egress's goes direct: the Egress no longer lists the server
    String clientIp =
        client.pods().inNamespace(APPS).withName("client").get().getStatus().getPodIP();
    setDestinations("203.0.113.101/32");
    await("the server, now outside the destinations, sees the pod itself")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .until(() -> clientIp.equals(seenFrom(clientNs)));
    setDestinations("203.0.113.100/32");
    await("listed again: the static address")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .until(() -> ADDRESS.equals(seenFrom(clientNs)));
    SHARED.end("egress: opted-in pod through the gateway");
  }

  @Test
  @Order(3)
  void theOutsideReachesTheMappedServiceThroughTheAddressAndNothingElse() {
    SHARED.begin();
    var c = cluster.clientNode();
    await("the web pod answers on the static address")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              var r = c.tryExec("curl", "-s", "--max-time", "2", "http://" + ADDRESS + ":8080/");
              return r.ok() && r.stdout().contains("web");
            });
    var other = c.tryExec("curl", "-s", "--max-time", "2", "http://" + ADDRESS + ":8081/");
    assertEquals(7, other.exitCode(), "connection refused (curl 7): " + other);
    SHARED.end("egress: reverse path");
  }

  @Test
  @Order(4)
  void whenTheGatewayGoesTheAddressAndTheTrafficMoveToTheOther() throws Exception {
    SHARED.begin();
    var before = egress().getStatus();
    String gone = before.gateway();
    String stays = gone.equals("nat-1") ? "nat-2" : "nat-1";
    var newNode = nodeNamed(stays.equals("nat-1") ? "node1" : "node2");
    String clientNs = podNetns(APPS, "client").netns();
    long t0 = System.nanoTime();
    // the pod goes: its container (sartd egress) stops, the kubelet tears it down
    egressProcesses.remove(gone).stop();
    relays.remove(gone).close();
    client.pods().inNamespace(NS).withName(gone).delete();
    await("both ToRs route the address to " + newNode.name())
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                torHops(cluster.tors().get(0)).equals(Set.of(newNode.internalIp()))
                    && torHops(cluster.tors().get(1)).equals(Set.of(newNode.addressB())));
    long routed = System.nanoTime();
    await("new connections go out through " + stays)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> ADDRESS.equals(seenFrom(clientNs)));
    long working = System.nanoTime();
    System.err.printf(
        "egress fail-over: pod deleted -> both ToRs route via %s %d ms, new connections work"
            + " %d ms (load %s)%n",
        newNode.name(),
        (routed - t0) / 1_000_000,
        (working - t0) / 1_000_000,
        Files.readString(Path.of("/proc/loadavg")).strip());
    assertEquals(stays, egress().getStatus().gateway());
    SHARED.end("egress: fail-over");
  }

  @Test
  @Order(5)
  void removingTheAnnotationAndTheEgressLeavesNothing() throws Exception {
    SHARED.begin();
    Node clientPod = podNetns(APPS, "client");
    String ip = client.pods().inNamespace(APPS).withName("client").get().getStatus().getPodIP();
    LockedEdit.edit(
        client,
        client.pods().inNamespace(APPS).withName("client"),
        p -> {
          p.getMetadata().setAnnotations(new HashMap<>());
          return p;
        });
    await("the client pod's tunnel is gone")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !clientPod.exec("ip", "-d", "link").contains("vxlan"));
    assertFalse(clientPod.exec("ip", "rule").contains("lookup 117"));
    assertEquals("", clientPod.exec("ip", "route", "show", "table", "117").strip());
    assertEquals(ip, seenFrom(clientPod.netns()), "back to its own address");

    client.resources(Egress.class).inNamespace(NS).withName("nat").delete();
    await("the address leaves both ToRs")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                torHops(cluster.tors().get(0)).isEmpty()
                    && torHops(cluster.tors().get(1)).isEmpty());
    await("the egress pods' ServiceAccount and bindings go with the last Egress")
        .atMost(Duration.ofSeconds(30))
        .until(() -> egressAccess() == 0);
    SHARED.end("egress: clean-up");
  }

  /**
   * How many of the ServiceAccount, RoleBinding and ClusterRoleBinding {@code sart-egress} exist.
   */
  static int egressAccess() {
    int n = 0;
    n += client.serviceAccounts().inNamespace(NS).withName("sart-egress").get() == null ? 0 : 1;
    n += client.rbac().roleBindings().inNamespace(NS).withName("sart-egress").get() == null ? 0 : 1;
    n += client.rbac().clusterRoleBindings().withName("sart-egress-" + NS).get() == null ? 0 : 1;
    return n;
  }
}
