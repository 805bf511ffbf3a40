package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Prerequisites;
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

/**
 * The cluster on one machine (DESIGN.md §9): an API server, {@code sartd controller} replicas,
 * nodes running {@code sartd node} with the sart-cni plugin installed by its installer, two FRR
 * top-of-rack routers every node is linked to, a client behind them, and the stand-ins for what is
 * not sart's: {@link KubeletStandIn}, {@link EndpointSliceStandIn}, {@link KubeProxyStandIn}.
 *
 * <pre>
 *            client (203.0.113.100, 2001:db8:ff::100 on lo)
 *             /                     \
 *   tor1 AS 65100 (192.0.2.1)   tor2 AS 65200 (192.0.2.65)
 *    LAN A 192.0.2.0/26            LAN B 192.0.2.64/26
 *    |        |        |            |        |        |
 *  node1    node2    node3  (.11 .12 .13 on A, .75 .76 .77 on B; AS 65001..65003)
 * </pre>
 *
 * <p>The fabric is dual-stack ({@link Fabric}): the LANs also carry 2001:db8:a::/64 and
 * 2001:db8:b::/64, and the ToRs have an IPv6 neighbour for every node.
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

  /**
   * What to start.
   *
   * @param split the nodes that run {@code sartd bgp}, {@code sartd fib} and {@code sartd agent} as
   *     processes of their own (as sart's DaemonSet) instead of {@code sartd node}
   */
  public record Options(int nodes, int controllers, String mode, Set<String> split) {
    public static Options defaults() {
      return new Options(3, 2, "dual", Set.of());
    }

    /** The controllers' {@code --mode}: lb, cni or dual. */
    public Options withMode(String m) {
      return new Options(nodes, controllers, m, split);
    }

    public Options withNodes(int n) {
      return new Options(n, controllers, mode, split);
    }

    public Options withControllers(int n) {
      return new Options(nodes, n, mode, split);
    }

    public Options withSplit(String... names) {
      return new Options(nodes, controllers, mode, Set.of(names));
    }
  }

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
  private ScenarioObjects scenarioObjects;

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
      try {
        c.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
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
    scenarioObjects = ScenarioObjects.atStart(k);
    phases.mark("api server and CRDs");
    fabric(options.nodes());
    phases.mark("ToRs and client");
    Path cert = certificate();
    phases.mark("certgen");
    for (int i = 1; i <= options.nodes(); i++) {
      nodes.add(node(i, options.split().contains("node" + i)));
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

  /** ToRs, their LANs, the client ({@link Fabric}). */
  private void fabric(int nodeCount) {
    Fabric f = Fabric.build(topology, nodeCount);
    bridgeA = f.bridgeA();
    bridgeB = f.bridgeB();
    client = f.client();
    tors.addAll(f.tors());
  }

  static String addressA(int i) {
    return Fabric.addressA(i);
  }

  static String addressB(int i) {
    return Fabric.addressB(i);
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

  private ClusterNode node(int i, boolean split) {
    String name = "node" + i;
    Node ns = topology.node(name);
    String a = addressA(i);
    String b = addressB(i);
    String ifA = topology.attach(ns, bridgeA).aName();
    String ifB = topology.attach(ns, bridgeB).aName();
    ns.address(ifA, a + "/26");
    ns.address(ifB, b + "/26");
    ns.address(ifA, Fabric.address6A(i) + "/64");
    ns.address(ifB, Fabric.address6B(i) + "/64");
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
                      .withType("InternalIP")
                      .withAddress(Fabric.address6A(i))
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
        new ClusterNode(
            name,
            ns,
            a,
            b,
            Fabric.address6A(i),
            Fabric.address6B(i),
            asn,
            List.of(ifA, ifB),
            new ClusterNode.Holder());
    install(node);
    if (split) {
      NodeDaemons.startSplit(node, kubeconfig(node), "");
    } else {
      startSartd(node, "sartd-node");
    }
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
                "sart-cni,sart-cni.jar,sart-cni.aot,sart-cni-version.aot,sart-cni.java-home"));
    if (!r.ok()) {
      throw new IllegalStateException("cni-installer on " + n.name() + ": " + r.stderr());
    }
  }

  /** The node's kubeconfig (the API server through a relay into its namespace). */
  private Path kubeconfig(ClusterNode n) {
    Path kubeconfig = n.netns().dir().resolve("kubeconfig");
    if (!Files.exists(kubeconfig)) {
      relayToApi(n.netns());
      api.kubeconfigThroughRelay(kubeconfig);
    }
    return kubeconfig;
  }

  /**
   * Starts (or restarts) {@code sartd node} in the node: the speaker, the FIB and the agent with
   * its CNI server, configured by kubeconfig and flags only.
   */
  public void startSartd(ClusterNode n, String processName) {
    NodeDaemons.startNode(n, kubeconfig(n), processName);
  }

  /**
   * {@code sartd node}'s agent serves /readyz once its informers listed (no NodeBGP yet). Up to 3
   * minutes: the nodes' JVMs start at once, and at a load average of ~27 on the shared 2-core
   * machine the first node's CNI socket came 70 s after its speaker listened.
   */
  public void awaitNodeReady(ClusterNode n) {
    await(n.name() + ": sartd node up")
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(300))
        .failFast(
            n.name() + ": a process of sartd exited",
            () -> NodeDaemons.processes(n).stream().anyMatch(p -> !p.isAlive()))
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
    killSartd(n);
    startSartdAgain(n);
    awaitNodeReady(n);
  }

  /** SIGKILLs every sart process of the node ({@code sartd node}, or a split node's three). */
  public void killSartd(ClusterNode n) {
    NodeDaemons.processes(n).forEach(NodeDaemons::kill);
  }

  /**
   * Stops every sart process of the node with SIGTERM, as the kubelet does in a rolling update of
   * the DaemonSet, and waits until they have exited.
   */
  public void stopSartd(ClusterNode n) {
    NodeDaemons.processes(n).forEach(NodeDaemons::terminate);
  }

  /** Starts a stopped node's sart processes again; returns at once ({@link #awaitNodeReady}). */
  public void startSartdAgain(ClusterNode n) {
    restarts++;
    if (n.split()) {
      NodeDaemons.startSplit(n, kubeconfig(n), "-r" + restarts);
    } else {
      startSartd(n, "sartd-node-r" + restarts);
    }
  }

  /**
   * Kills a split node's {@code sartd agent} with SIGKILL (its container crashed); the speaker and
   * the FIB keep running.
   */
  public void killAgent(ClusterNode n) {
    if (!n.split()) {
      throw new IllegalArgumentException(n + " runs sartd node: its agent is not a process");
    }
    NodeDaemons.kill(n.agent());
  }

  /** Starts a split node's {@code sartd agent} again; returns once it is ready. */
  public void startAgent(ClusterNode n) {
    restarts++;
    NodeDaemons.startAgent(n, kubeconfig(n), "sartd-agent-r" + restarts);
    awaitAgentReady(n);
  }

  /** A split node's agent answers 200 on {@code /readyz}. */
  public void awaitAgentReady(ClusterNode n) {
    await(n.name() + ": sartd agent ready")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300))
        .failFast(n.name() + ": sartd agent exited", () -> !n.agent().isAlive())
        .until(
            () ->
                Http.get(
                        n.netns(),
                        "127.0.0.1",
                        NodeDaemons.AGENT_HTTP_PORT,
                        "/readyz",
                        Duration.ofSeconds(2))
                    .isPresent());
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
    return TorRoutes.fibNextHops(tor, prefix);
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
    if (scenarioObjects != null) {
      try {
        scenarioObjects.remove(api.client());
      } catch (RuntimeException e) {
        System.err.println("removing the scenarios' objects: " + e);
      }
    }
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
      NodeDaemons.processes(n).forEach(ManagedProcess::stop);
    }
    api.close();
  }
}
