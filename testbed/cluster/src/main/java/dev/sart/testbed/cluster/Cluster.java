package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Prerequisites;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The cluster on one machine (DESIGN.md §9): an API server, {@code sartd controller} replicas,
 * nodes running {@code sartd node} with the sart-cni plugin installed by its installer, two FRR
 * top-of-rack routers every node is linked to, a client behind them, and the stand-ins for what is
 * not sart's: {@link KubeletStandIn}, {@link EndpointSliceStandIn}, {@link KubeProxyStandIn}.
 *
 * <pre>
 *            client (203.0.113.100 on lo)
 *             /                     \
 *   tor1 AS 65100 (192.0.2.1)   tor2 AS 65200 (192.0.2.65)
 *    LAN A 192.0.2.0/26            LAN B 192.0.2.64/26
 *    |        |        |            |        |        |
 *  node1    node2    node3  (.11 .12 .13 on A, .75 .76 .77 on B; AS 65001..65003)
 * </pre>
 *
 * <p>Nothing sart-specific is configured here beyond what a cluster operator gets from the
 * project's manifests: the scenarios apply the BGPPeerTemplates, ClusterBGP and AddressPools as a
 * user would. Every address is a documentation address inside namespaces with the test bed's
 * per-run prefix.
 */
public final class Cluster implements AutoCloseable {
  public static final String CLIENT_ADDRESS = "203.0.113.100";
  public static final long TOR1_ASN = 65100;
  public static final long TOR2_ASN = 65200;
  public static final String TOR1_ADDRESS = "192.0.2.1";
  public static final String TOR2_ADDRESS = "192.0.2.65";

  /** What to start. */
  public record Options(int nodes, int controllers, String mode) {
    public static Options defaults() {
      return new Options(3, 2, "dual");
    }

    /** The controllers' {@code --mode}: lb, cni or dual. */
    public Options withMode(String m) {
      return new Options(nodes, controllers, m);
    }

    public Options withNodes(int n) {
      return new Options(n, controllers, mode);
    }

    public Options withControllers(int n) {
      return new Options(nodes, n, mode);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Topology topology;
  private final ApiServer api;
  private final List<Frr> tors = new ArrayList<>();
  private final List<ClusterNode> nodes = new ArrayList<>();
  private final List<ManagedProcess> controllers = new ArrayList<>();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final List<Node> controllerNamespaces = new ArrayList<>();
  private String mode;
  private Path cert;
  private int restarts;
  private Node client;
  private Node bridgeA;
  private Node bridgeB;
  private StandIns standIns;

  private Cluster(Topology topology, ApiServer api) {
    this.topology = topology;
    this.api = api;
  }

  /**
   * Brings the cluster up in {@code topology}: API server ({@link ApiServer#fromEnvironment}),
   * CRDs, fabric, nodes, controllers and stand-ins. Returns once every {@code sartd node} and
   * controller serves; sessions come up once a ClusterBGP exists.
   */
  public static Cluster start(Topology topology, Options options) {
    long t0 = System.nanoTime();
    Prerequisites.requireCommands(
        "ip", "nft", "/usr/bin/python3", "/usr/lib/frr/zebra", "/usr/lib/frr/bgpd", "vtysh");
    ApiServer api = ApiServer.fromEnvironment(topology.dir().resolve("apiserver"));
    Cluster c = new Cluster(topology, api);
    try {
      c.bringUp(options);
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
    System.err.printf(
        "cluster on one machine up in %.1f s (%s API server, %d nodes, %d controllers)%n",
        (System.nanoTime() - t0) / 1e9,
        api.isReal() ? "real" : "mock",
        options.nodes(),
        options.controllers());
    return c;
  }

  private void bringUp(Options options) {
    Phases phases = new Phases();
    api.applyCrds(Launch.crdManifests());
    KubernetesClient k = api.client();
    for (String ns : List.of("kube-system", "kube-node-lease", "default")) {
      ensureNamespace(ns, Map.of());
    }
    phases.mark("api server and CRDs");
    fabric(options.nodes());
    phases.mark("ToRs and client");
    Path cert = certificate();
    phases.mark("certgen");
    for (int i = 1; i <= options.nodes(); i++) {
      nodes.add(node(i));
    }
    for (int i = 1; i <= options.controllers(); i++) {
      controllers.add(controller(i, options.mode(), cert));
    }
    phases.mark("nodes and controllers started");
    standIns = new StandIns(api, topology, nodes);
    closing.add(standIns);
    for (ClusterNode n : nodes) {
      awaitNodeReady(n);
    }
    phases.mark("sartd node ready");
    System.err.println("cluster bring-up: " + phases);
  }

  /** Where a bring-up spent its time. */
  private static final class Phases {
    private final StringBuilder text = new StringBuilder();
    private long last = System.nanoTime();

    void mark(String phase) {
      long now = System.nanoTime();
      text.append(text.isEmpty() ? "" : ", ")
          .append(phase)
          .append(' ')
          .append(String.format("%.1f s", (now - last) / 1e9));
      last = now;
    }

    @Override
    public String toString() {
      return text.toString();
    }
  }

  /** ToRs, their LANs, the client. */
  private void fabric(int nodeCount) {
    bridgeA = topology.bridge("lana");
    bridgeB = topology.bridge("lanb");
    client = topology.node("client");
    Node tor1 = topology.node("tor1");
    Node tor2 = topology.node("tor2");
    tor1.address(topology.attach(tor1, bridgeA).aName(), TOR1_ADDRESS + "/26");
    tor2.address(topology.attach(tor2, bridgeB).aName(), TOR2_ADDRESS + "/26");
    topology.link(tor1, client).addresses("203.0.113.1/30", "203.0.113.2/30");
    topology.link(tor2, client).addresses("203.0.113.5/30", "203.0.113.6/30");
    client.address("lo", CLIENT_ADDRESS + "/32");
    // the client spreads its connections over both ToRs (layer-4 hash), from its own address
    client.exec("sysctl", "-q", "-w", "net.ipv4.fib_multipath_hash_policy=1");
    client.exec(
        "ip",
        "route",
        "add",
        "default",
        "src",
        CLIENT_ADDRESS,
        "nexthop",
        "via",
        "203.0.113.1",
        "nexthop",
        "via",
        "203.0.113.5");
    for (Node tor : List.of(tor1, tor2)) {
      tor.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
      tor.exec("sysctl", "-q", "-w", "net.ipv4.fib_multipath_hash_policy=1");
    }
    tor1.route(CLIENT_ADDRESS + "/32", "203.0.113.2");
    tor2.route(CLIENT_ADDRESS + "/32", "203.0.113.6");
    RouterConfig c1 = RouterConfig.of(TOR1_ASN, TOR1_ADDRESS).originate(CLIENT_ADDRESS + "/32");
    RouterConfig c2 = RouterConfig.of(TOR2_ASN, TOR2_ADDRESS).originate(CLIENT_ADDRESS + "/32");
    for (int i = 1; i <= nodeCount; i++) {
      c1 = c1.neighbor(Neighbor.of(addressA(i), 65000 + i));
      c2 = c2.neighbor(Neighbor.of(addressB(i), 65000 + i));
    }
    for (var pair : List.of(Map.entry(tor1, c1), Map.entry(tor2, c2))) {
      Frr frr = new Frr(pair.getKey(), pair.getValue(), true);
      frr.start();
      // ECMP over the nodes, whose AS paths differ (one AS per node)
      frr.vtysh(
          "configure",
          "router bgp " + pair.getValue().asn(),
          "bgp bestpath as-path multipath-relax",
          "address-family ipv4 unicast",
          "maximum-paths 16");
      tors.add(frr);
    }
  }

  static String addressA(int i) {
    return "192.0.2." + (10 + i);
  }

  static String addressB(int i) {
    return "192.0.2." + (74 + i);
  }

  /** The webhook certificate, made with {@code sartd certgen} as the project's README says. */
  private Path certificate() {
    Path dir = topology.dir().resolve("cert");
    Shell.run(
        Launch.java(),
        "-XX:TieredStopAtLevel=1",
        Launch.classpathArgument(),
        "dev.sart.sartd.Sartd",
        "certgen",
        "--out-dir",
        dir.toString());
    return dir;
  }

  private HostRelay relayToApi(Node n) {
    HostRelay r = HostRelay.open(n, api.address().getPort(), api.address());
    closing.add(r);
    return r;
  }

  private ClusterNode node(int i) {
    String name = "node" + i;
    Node ns = topology.node(name);
    String a = addressA(i);
    String b = addressB(i);
    String ifA = topology.attach(ns, bridgeA).aName();
    String ifB = topology.attach(ns, bridgeB).aName();
    ns.address(ifA, a + "/26");
    ns.address(ifB, b + "/26");
    long asn = 65000 + i;

    // the Node object, as a kubelet registers it
    KubernetesClient k = api.client();
    k.resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(
                    Map.of(
                        "kubernetes.io/hostname",
                        name,
                        "kubernetes.io/os",
                        "linux",
                        "sart.terassyi.net/asn",
                        Long.toString(asn),
                        "bgp",
                        "a"))
                .endMetadata()
                .build())
        .create();
    k.nodes()
        .withName(name)
        .editStatus(
            n -> {
              n.setStatus(
                  new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                      .addNewAddress()
                      .withType("InternalIP")
                      .withAddress(a)
                      .endAddress()
                      .addNewAddress()
                      .withType("Hostname")
                      .withAddress(name)
                      .endAddress()
                      .withConditions(ready())
                      .build());
              return n;
            });

    // the plugin, installed by its installer (what the agent's init container runs)
    ClusterNode node =
        new ClusterNode(name, ns, a, b, asn, List.of(ifA, ifB), new ClusterNode.Holder());
    install(node);
    startSartd(node, "sartd-node");
    return node;
  }

  private static NodeCondition ready() {
    return new NodeConditionBuilder()
        .withType("Ready")
        .withStatus("True")
        .withReason("KubeletReady")
        .withLastHeartbeatTime(Instant.now().toString())
        .withLastTransitionTime(Instant.now().toString())
        .build();
  }

  /** The conflist the installer writes from $CNI_NETCONF (sart-cni/README.md, without portmap). */
  static String netconf(ClusterNode n) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\"sart-network\",\"plugins\":[{\"type\":\"sart-cni\","
        + "\"endpoint\":\""
        + n.cniSocket()
        + "\",\"timeout\":60}]}";
  }

  private void install(ClusterNode n) {
    try {
      Files.createDirectories(n.cniBinDir());
      Files.createDirectories(n.cniConfDir());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path dist = Launch.cniDist();
    Shell.Result r =
        Shell.exec(
            List.of(
                "env",
                "CNI_NETCONF=" + netconf(n),
                dist.resolve("sart-cni").toString(),
                "cni-installer",
                "--src-bin-dir",
                dist.toString(),
                "--bin-dir",
                n.cniBinDir().toString(),
                "--conf-dir",
                n.cniConfDir().toString(),
                "--binaries",
                "sart-cni,sart-cni.jar,sart-cni.aot,sart-cni.java-home"));
    if (!r.ok()) {
      throw new IllegalStateException("cni-installer on " + n.name() + ": " + r.stderr());
    }
  }

  /**
   * Starts (or restarts) {@code sartd node} in the node: the speaker, the FIB and the agent with
   * its CNI server, configured by kubeconfig and flags only.
   */
  public void startSartd(ClusterNode n, String processName) {
    Path dir = n.netns().dir();
    Path kubeconfig = dir.resolve("kubeconfig");
    Path agentConfig = dir.resolve("agent.json");
    try {
      if (!Files.exists(kubeconfig)) {
        relayToApi(n.netns());
        api.kubeconfigThroughRelay(kubeconfig);
      }
      Files.writeString(
          agentConfig,
          "{\"socket\":\""
              + n.cniSocket()
              + "\",\"nodeAddress4\":\""
              + n.internalIp()
              + "\",\"mtu\":1500}\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    n.sartd().process =
        n.netns()
            .spawn(
                processName,
                List.of(
                    Launch.java(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-Xmx256m",
                    "-Dsart.bgp.warmup=0",
                    Launch.classpathArgument(),
                    "dev.sart.sartd.Sartd",
                    "node",
                    "--kubeconfig",
                    kubeconfig.toString(),
                    "--node-name",
                    n.name(),
                    "--cni-config",
                    agentConfig.toString(),
                    "--cni-socket",
                    n.cniSocket().toString()),
                Map.of("NODE_NAME", n.name()));
  }

  /** {@code sartd node}'s agent serves /readyz once its informers listed (no NodeBGP yet). */
  private void awaitNodeReady(ClusterNode n) {
    await(n.name() + ": sartd node up")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300))
        .failFast(
            n.name() + ": sartd node exited:\n" + n.process().tail(30),
            () -> !n.process().isAlive())
        .until(() -> Files.exists(n.cniSocket()) && n.sart("bgp", "global", "health").ok());
  }

  private ManagedProcess controller(int i, String mode, Path cert) {
    Node ns = topology.node("cp" + i);
    relayToApi(ns);
    api.kubeconfigThroughRelay(ns.dir().resolve("kubeconfig"));
    controllerNamespaces.add(ns);
    this.mode = mode;
    this.cert = cert;
    return spawnController(i, "sartd-controller");
  }

  /**
   * {@code sartd controller} replica {@code i} as the project's Deployment runs it
   * (kube-controller/manifests/controller.yaml: its arguments, {@code POD_NAMESPACE}, a pod name as
   * {@code HOSTNAME}, the certificate directory).
   */
  private ManagedProcess spawnController(int i, String processName) {
    Node ns = controllerNamespaces.get(i - 1);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("KUBECONFIG", ns.dir().resolve("kubeconfig").toString());
    env.put("POD_NAMESPACE", "kube-system");
    env.put("HOSTNAME", "sart-controller-" + i);
    return ns.spawn(
        processName,
        List.of(
            Launch.java(),
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xmx256m",
            Launch.classpathArgument(),
            "dev.sart.sartd.Sartd",
            "controller",
            "--mode",
            mode,
            "--http",
            "0.0.0.0:8080",
            "--https",
            "0.0.0.0:8443",
            "--cert-dir",
            cert.toString(),
            "-l",
            System.getProperty("sart.cluster.controller.log", "info")),
        env);
  }

  /** Stops every controller replica (SIGTERM) and starts them again (a rollout restart). */
  public void restartControllers() {
    restartControllers(mode);
  }

  /** The same with another {@code --mode} (lb, cni, dual): what patching the Deployment does. */
  public void restartControllers(String newMode) {
    mode = newMode;
    restarts++;
    for (ManagedProcess p : controllers) {
      p.stop();
    }
    for (int i = 1; i <= controllers.size(); i++) {
      controllers.set(i - 1, spawnController(i, "sartd-controller-r" + restarts));
    }
  }

  /**
   * Kills the node's {@code sartd node} (speaker, FIB and agent) with SIGKILL and starts a new one,
   * as a crashed DaemonSet pod is restarted; returns once it serves.
   */
  public void restartSartd(ClusterNode n) {
    restarts++;
    ProcessHandle.of(n.process().pid()).ifPresent(ProcessHandle::destroyForcibly);
    await(n.name() + ": sartd node gone")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !n.process().isAlive());
    startSartd(n, "sartd-node-r" + restarts);
    awaitNodeReady(n);
  }

  /** Takes the node's links to both ToRs down (a cut cable, a dead NIC) or up again. */
  public void uplinks(ClusterNode n, boolean up) {
    for (String ifname : n.uplinks()) {
      n.netns().exec("ip", "link", "set", ifname, up ? "up" : "down");
    }
  }

  // ---- what the scenarios and the demo use

  /**
   * The Namespace (with these annotations) and its {@code default} ServiceAccount, each made only
   * if missing: a real API server's ServiceAccount admission refuses pods without it, and without
   * kube-controller-manager nobody else makes it.
   */
  public void ensureNamespace(String name, Map<String, String> annotations) {
    KubernetesClient k = api.client();
    if (k.namespaces().withName(name).get() == null) {
      k.resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withAnnotations(annotations)
                  .endMetadata()
                  .build())
          .create();
    }
    if (k.serviceAccounts().inNamespace(name).withName("default").get() == null) {
      try {
        k.resource(
                new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                    .withNewMetadata()
                    .withNamespace(name)
                    .withName("default")
                    .endMetadata()
                    .build())
            .create();
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
  }

  public KubernetesClient client() {
    return api.client();
  }

  public ApiServer api() {
    return api;
  }

  public Topology topology() {
    return topology;
  }

  public List<ClusterNode> nodes() {
    return List.copyOf(nodes);
  }

  public ClusterNode node(String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  public List<Frr> tors() {
    return List.copyOf(tors);
  }

  /** The outside world's host, behind the ToRs. */
  public Node clientNode() {
    return client;
  }

  public List<ManagedProcess> controllers() {
    return List.copyOf(controllers);
  }

  public KubeletStandIn kubelet(String node) {
    return standIns.kubelet(node);
  }

  public StandIns standIns() {
    return standIns;
  }

  /** The network namespace of a pod some node's kubelet stand-in runs now. */
  public java.util.Optional<KubeletStandIn.Running> pod(String namespace, String name) {
    for (ClusterNode n : nodes) {
      var r = standIns.kubelet(n.name()).running().get(namespace + "/" + name);
      if (r != null) {
        return java.util.Optional.of(r);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * The next hops of the route the ToR's kernel uses for {@code prefix} (zebra's FIB entry, as
   * {@code vtysh -c 'show ip route PREFIX json'} shows it); empty when there is none.
   */
  public static Set<String> fibNextHops(Frr tor, String prefix) {
    Set<String> out = new TreeSet<>();
    JsonNode root;
    try {
      root = JSON.readTree(tor.vtysh("show ip route " + prefix + " json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (JsonNode route : root.path(prefix)) {
      if (!route.path("protocol").asText().equals("bgp") || !route.path("selected").asBoolean()) {
        continue;
      }
      for (JsonNode nh : route.path("nexthops")) {
        if (nh.path("fib").asBoolean() && nh.has("ip")) {
          out.add(nh.get("ip").asText());
        }
      }
    }
    return out;
  }

  /** The node with this address on either LAN. */
  public ClusterNode nodeAt(String address) {
    return nodes.stream()
        .filter(n -> n.internalIp().equals(address) || n.addressB().equals(address))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node has " + address));
  }

  /**
   * What a real API server keeps after the run and nothing else would remove: the kubelet
   * stand-in's finalizers on pods (those pods are deleted) and the Node objects this cluster
   * registered.
   */
  private void releaseApiObjects() {
    KubernetesClient k = api.client();
    for (var p : k.pods().inAnyNamespace().list().getItems()) {
      if (p.getMetadata().getFinalizers().contains(KubeletStandIn.FINALIZER)) {
        try {
          k.pods()
              .inNamespace(p.getMetadata().getNamespace())
              .withName(p.getMetadata().getName())
              .edit(
                  x -> {
                    x.getMetadata().getFinalizers().remove(KubeletStandIn.FINALIZER);
                    return x;
                  });
          k.resource(p).withGracePeriod(0).delete();
        } catch (RuntimeException e) {
          System.err.println("releasing pod " + p.getMetadata().getName() + ": " + e);
        }
      }
    }
    for (ClusterNode n : nodes) {
      k.nodes().withName(n.name()).delete();
    }
  }

  @Override
  public void close() {
    if (standIns != null) {
      standIns.close();
    }
    try {
      releaseApiObjects();
    } catch (RuntimeException e) {
      System.err.println("releasing the cluster's objects: " + e);
    }
    for (AutoCloseable c : closing.reversed()) {
      try {
        c.close();
      } catch (Exception e) {
        System.err.println("closing " + c + ": " + e);
      }
    }
    closing.clear();
    for (ManagedProcess p : controllers) {
      p.stop();
    }
    for (ClusterNode n : nodes) {
      if (n.process() != null) {
        n.process().stop();
      }
    }
    api.close();
  }
}
