package dev.sart.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.SessionState;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.cluster.ApiServer;
import dev.sart.testbed.cluster.HostRelay;
import dev.sart.testbed.cluster.Launch;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sartd node} as the DaemonSet of {@code deploy/lb} runs it, from the image: the rendered
 * container (its command line, environment, user, read-only root, {@code /tmp} emptyDir and exactly
 * the capabilities it adds, {@link Container}) runs from the unpacked image inside a node's network
 * namespace (the pod is {@code hostNetwork}), against the cluster test bed's mock API server, and
 * peers with FRR: the ToR shows the session Established and the route of a BGPAdvertisement, and
 * the node's kernel table gets the ToR's route (netlink with {@code NET_ADMIN}). The test plays the
 * controller (NodeBGP, BGPPeer, the advertisement's status) and the ServiceAccount (a kubeconfig in
 * {@code $KUBECONFIG}: the mock server speaks plain HTTP, the in-cluster configuration HTTPS).
 */
class ImageNodeTest {
  private static final String NODE = "worker1";
  private static final String NODE_IP = "192.0.2.2";
  private static final String TOR_IP = "192.0.2.1";
  private static final String PEER = NODE + "-65000-" + TOR_IP;
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final Testbed testbed = new Testbed();
  @TempDir Path work;

  @Test
  void theDaemonSetsContainerPeersWithFrrWithOnlyItsCapabilities() throws Exception {
    ImageRoot image = ImageRoot.unpack(work);
    JsonNode ds = Manifests.one(KustomizeTest.render("lb"), "DaemonSet", "sartd-node");
    Container container =
        Container.of(image, ds, "node")
            .field("spec.nodeName", NODE)
            .field("status.hostIP", NODE_IP)
            .env("KUBECONFIG", "/var/run/sart-test/kubeconfig");
    assertEquals(Set.of("NET_ADMIN", "NET_BIND_SERVICE"), container.capabilities());

    Topology t = testbed.topology();
    Node node = t.node("node");
    Node tor = t.node("tor");
    t.link(node, tor).addresses(NODE_IP + "/30", TOR_IP + "/30");
    Router frr =
        RouterKind.FRR
            .create(
                tor,
                RouterConfig.of(65000, TOR_IP)
                    .neighbor(Neighbor.of(NODE_IP, 65001))
                    .originate("203.0.113.0/24"))
            .start();

    try (ApiServer api = ApiServer.startMock(work.resolve("api"));
        HostRelay relay = HostRelay.open(node, api.address().getPort(), api.address())) {
      api.applyCrds(Launch.crdManifests());
      Path kube = Files.createDirectories(work.resolve("kube"));
      api.kubeconfigThroughRelay(kube.resolve("kubeconfig"));
      KubernetesClient client = api.client();
      playTheController(client);

      container.mount(kube, "/var/run/sart-test");
      ManagedProcess sartd = startAndAwaitReady(node, container, work.resolve("run"), "node");
      awaitPeeredAndPrintRss(frr, sartd, "node");
      Route r = frr.awaitRoute("198.51.100.10/32");
      assertEquals(List.of(65001L), r.asPath());
      await("the BGPPeer's status")
          .atMost(Duration.ofSeconds(60))
          .until(() -> peerStatus(client) == BGPPeerCondition.Status.Established);
      await("the ToR's route in the node's kernel table")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                JsonNode routes =
                    JSON.readTree(node.exec("ip", "-j", "route", "show", "203.0.113.0/24"));
                return routes.size() == 1 && TOR_IP.equals(routes.get(0).path("gateway").asText());
              });

      // the JVM (the container's PID 1 after the launcher's exec) has exactly the two capabilities
      Map<String, String> status = procStatus(jvm(sartd));
      long want = Container.mask(Set.of("NET_ADMIN", "NET_BIND_SERVICE"));
      assertEquals(want, Long.parseLong(status.get("CapEff"), 16), "effective: " + status);
      assertEquals(want, Long.parseLong(status.get("CapPrm"), 16), "permitted: " + status);
      assertEquals(want, Long.parseLong(status.get("CapBnd"), 16), "bounding: " + status);
      assertEquals("1", status.get("NoNewPrivs"), "allowPrivilegeEscalation: false");
      assertEquals("0", status.get("Uid").split("\\s+")[0], "runAsUser: 0");

      // what a PodMonitor scrapes: every port of the container named *metrics, on the node's
      // address
      Set<String> exported = new java.util.TreeSet<>();
      for (JsonNode port : ds.at("/spec/template/spec/containers/0/ports")) {
        if (port.path("name").asText().endsWith("metrics")) {
          exported.addAll(
              Dashboard.scrape(
                  node,
                  "http://" + NODE_IP + ":" + port.path("containerPort").asInt() + "/metrics"));
        }
      }
      System.out.println("sartd node exports: " + exported);
      Dashboard.checkExported(Dashboard.NODE.or(Dashboard.JVM), exported, "sartd node");

      // measured in the same run (deploy/README.md, "AOT cache"): the same container again with
      // each cache of -Dsart.image.node.caches, e.g. bgp,node,bgp,node (node: the launcher's own
      // choice; bgp: sartd.aot, as the image had before sartd-node.aot; none: no cache)
      int run = 0;
      for (String cache : System.getProperty("sart.image.node.caches", "").split(",")) {
        if (cache.isBlank()) {
          continue;
        }
        sartd.stop();
        // the ToR keeps the routes (graceful restart), not the session
        await("the ToR sees the session down")
            .atMost(Duration.ofSeconds(60))
            .until(() -> frr.sessionState(NODE_IP) != SessionState.ESTABLISHED);
        container.env(
            "SARTD_JAVA_OPTS",
            switch (cache) {
              case "node" -> "";
              case "bgp" -> "-XX:AOTCache=/opt/sart/sartd.aot";
              case "none" -> "-XX:AOTMode=off";
              default -> throw new IllegalArgumentException("sart.image.node.caches: " + cache);
            });
        sartd = startAndAwaitReady(node, container, work.resolve("run" + ++run), cache);
        awaitPeeredAndPrintRss(frr, sartd, cache);
      }
    }
  }

  /** Starts the container in the node's namespace; waits until its {@code /readyz} answers. */
  private static ManagedProcess startAndAwaitReady(
      Node node, Container container, Path scratch, String cache) {
    long start = System.nanoTime();
    ManagedProcess sartd = node.spawn("sartd-node-" + cache, container.argv(scratch));
    await("sartd node /readyz")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              assertTrue(sartd.isAlive(), () -> "sartd node exited: " + sartd.tail(40));
              return node.tryExec(
                      "curl", "-sf", "-o", "/dev/null", "http://" + NODE_IP + ":8000/readyz")
                  .ok();
            });
    double ready = (System.nanoTime() - start) / 1e9;
    try {
      // the JVM's CPU time so far (utime + stime, in clock ticks of 10 ms): less load-bound than
      // the
      // wall time
      String stat = Files.readString(Path.of("/proc", Long.toString(jvm(sartd)), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
      System.out.printf(
          "sartd node from the image (cache %s): ready %.2f s after start, %.2f s of CPU%n",
          cache, ready, cpu);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return sartd;
  }

  /** Waits until the ToR has the session Established; prints the JVM's RSS then. */
  private static void awaitPeeredAndPrintRss(Router frr, ManagedProcess sartd, String cache)
      throws java.io.IOException {
    frr.awaitEstablished(NODE_IP);
    System.out.printf(
        "sartd node from the image (cache %s): RSS %s once peered%n",
        cache, procStatus(jvm(sartd)).get("VmRSS"));
  }

  /** The JVM: the container's PID 1 (unshare's child) after the launcher's exec. */
  private static long jvm(ManagedProcess container) throws java.io.IOException {
    long pid = ProcessHandle.of(container.pid()).orElseThrow().children().findFirst().get().pid();
    Map<String, String> status = procStatus(pid);
    assertTrue(status.get("Name").startsWith("java"), status.toString());
    return pid;
  }

  private static void playTheController(KubernetesClient client) {
    client.resource(ControllerObjects.nodeBgp(NODE, 65001, NODE_IP, "127.0.0.1:5000")).create();
    client.resource(ControllerObjects.peer(NODE, 65000, TOR_IP, null, null, null)).create();
    ControllerObjects.advert(
        client, "default", "lb-1", "198.51.100.10/32", Map.of(PEER, AdvertiseStatus.NotAdvertised));
  }

  private static BGPPeerCondition.Status peerStatus(KubernetesClient client) {
    BGPPeer p = client.resources(BGPPeer.class).withName(PEER).get();
    return p.getStatus() == null || p.getStatus().conditions() == null
        ? null
        : p.getStatus().conditions().getLast().status();
  }

  private static Map<String, String> procStatus(long pid) throws java.io.IOException {
    Map<String, String> m = new java.util.HashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      int colon = line.indexOf(':');
      m.put(line.substring(0, colon), line.substring(colon + 1).strip());
    }
    return m;
  }
}
