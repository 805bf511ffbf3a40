package dev.sart.testbed.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Stand-in for a node's kubelet and container runtime (not sart's). For each Pod bound to its node
 * ({@code spec.nodeName}) it does what a kubelet with a CNI runtime does, in that order:
 *
 * <ol>
 *   <li>puts its finalizer on the Pod, so that a deletion waits for the teardown (a real API server
 *       waits for the kubelet's final delete anyway; the finalizer makes every server wait alike);
 *   <li>creates the pod's network namespace (with the test bed's per-run prefix);
 *   <li>runs the network configuration the installer wrote in the node's CNI directory ({@code
 *       /etc/cni/net.d}, first file by name) exactly as a container runtime (libcni) does: each
 *       plugin of the conflist from the node's {@code /opt/cni/bin}, inside the node's namespace,
 *       with only the {@code CNI_*} environment, the plugin's configuration with {@code name},
 *       {@code cniVersion} and the previous result on stdin; ADD retried after a DEL when it fails
 *       (code 11 while the node's block is requested);
 *   <li>starts the pod's one container: a tiny HTTP server on port 8080 that answers every GET with
 *       the pod's name ({@code python3});
 *   <li>probes it from the node (readiness), then writes the Pod's status: Running, {@code
 *       podIP(s)}, {@code hostIP}, condition Ready;
 * </ol>
 *
 * When the Pod is being deleted it runs the container's {@code preStop} sleep (still serving, as a
 * draining application would), stops the container, calls DEL (plugins in reverse order with the
 * ADD result as {@code prevResult}), deletes the namespace, removes its finalizer and deletes the
 * Pod with grace period 0, as a kubelet does.
 */
public final class KubeletStandIn implements AutoCloseable {
  public static final String FINALIZER = "testbed.sart.dev/kubelet-stand-in";
  public static final int HTTP_PORT = 8080;
  private static final Logger LOG = Logger.getLogger(KubeletStandIn.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger POD_NETNS = new AtomicInteger();

  /** The pod's container: answers GET with the pod's name (argv 1) on port argv 2. */
  static final String HTTP_SERVER =
      String.join(
          "\n",
          "import http.server, socket, sys",
          "name = sys.argv[1].encode()",
          "class H(http.server.BaseHTTPRequestHandler):",
          "    def do_GET(self):",
          "        self.send_response(200)",
          "        self.send_header('Content-Length', str(len(name)))",
          "        self.end_headers()",
          "        self.wfile.write(name)",
          "    def log_message(self, *a):",
          "        pass",
          "class S6(http.server.ThreadingHTTPServer):",
          "    address_family = socket.AF_INET6",
          "try:",
          "    s = S6(('::', int(sys.argv[2])), H)  # both families (bindv6only is 0)",
          "except OSError:",
          "    s = http.server.ThreadingHTTPServer(('0.0.0.0', int(sys.argv[2])), H)",
          "s.serve_forever()",
          "");

  /** A pod this kubelet runs. */
  public record Running(
      String key,
      String uid,
      Node netns,
      String containerId,
      List<String> ips,
      ManagedProcess container,
      String addResult,
      Network network) {}

  /**
   * A CNI network this kubelet runs: a conflist and the directory of its plugins ({@code
   * CNI_PATH}). By default the one the installer wrote in the node's {@code /etc/cni/net.d} with
   * the node's {@code /opt/cni/bin}; {@link #useNetwork} puts another in its place (a benchmark's
   * reference plugins), as re-configuring a runtime would.
   */
  public record Network(Path conflist, Path binDir) {}

  private final KubernetesClient client;
  private final Topology topology;
  private final ClusterNode node;
  private final SharedIndexInformer<Pod> pods;
  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final ExecutorService worker;
  private volatile Network network;
  private final java.util.Queue<Long> addNanos = new java.util.concurrent.ConcurrentLinkedQueue<>();

  KubeletStandIn(
      KubernetesClient client, Topology topology, ClusterNode node, SharedIndexInformer<Pod> pods) {
    this.client = client;
    this.topology = topology;
    this.node = node;
    this.pods = pods;
    this.worker =
        Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("kubelet-" + node.name()).unstarted(r));
  }

  /** A Pod of this node changed: sync it on the kubelet's thread. */
  void changed(Pod p) {
    String key = p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    worker.execute(
        () -> {
          try {
            sync(key);
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, node.name() + ": pod " + key + ": " + e.getMessage(), e);
            // level-triggered: the next event (or the retry) syncs it again
            retryLater(key);
          }
        });
  }

  private void retryLater(String key) {
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                Thread.sleep(1_000);
                Pod p = pods.getStore().getByKey(key);
                if (p != null) {
                  changed(p);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
  }

  /**
   * Pods started from now on use {@code n} ({@code null}: the installed network again); running
   * pods are torn down with the network they were set up with.
   */
  public void useNetwork(Network n) {
    network = n;
  }

  /** The run time of each successful CNI ADD (the whole conflist) since the last call, in ns. */
  public List<Long> drainAddTimes() {
    List<Long> out = new ArrayList<>();
    for (Long t; (t = addNanos.poll()) != null; ) {
      out.add(t);
    }
    return out;
  }

  private Network currentNetwork() {
    Network n = network;
    return n != null ? n : new Network(conflist(), node.cniBinDir());
  }

  /** The pods running on this node now, by {@code namespace/name}. */
  public Map<String, Running> running() {
    return Map.copyOf(running);
  }

  private void sync(String key) {
    Pod pod = pods.getStore().getByKey(key);
    Running r = running.get(key);
    if (pod != null && !node.name().equals(pod.getSpec().getNodeName())) {
      pod = null;
    }
    if (r != null && (pod == null || !pod.getMetadata().getUid().equals(r.uid()))) {
      stop(r, 0);
      r = null;
    }
    if (pod == null) {
      return;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      if (r != null) {
        stop(r, preStopSeconds(pod));
      }
      release(pod);
      return;
    }
    if (r == null) {
      if (!pod.getMetadata().getFinalizers().contains(FINALIZER)) {
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .edit(
                p -> {
                  if (!p.getMetadata().getFinalizers().contains(FINALIZER)) {
                    p.getMetadata().getFinalizers().add(FINALIZER);
                  }
                  return p;
                });
      }
      start(key, pod);
    }
  }

  private static long preStopSeconds(Pod pod) {
    long grace =
        pod.getSpec().getTerminationGracePeriodSeconds() == null
            ? 30
            : pod.getSpec().getTerminationGracePeriodSeconds();
    long sleep = 0;
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getLifecycle() != null
          && c.getLifecycle().getPreStop() != null
          && c.getLifecycle().getPreStop().getSleep() != null
          && c.getLifecycle().getPreStop().getSleep().getSeconds() != null) {
        sleep = Math.max(sleep, c.getLifecycle().getPreStop().getSleep().getSeconds());
      }
    }
    return Math.min(sleep, grace);
  }

  private void start(String key, Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Node netns = topology.node("p" + POD_NETNS.incrementAndGet());
    String containerId = containerId();
    String result = null;
    RuntimeException last = null;
    Network net = currentNetwork();
    for (int attempt = 0; attempt < 60 && result == null; attempt++) {
      try {
        long t0 = System.nanoTime();
        result = add(net, pod, netns, containerId);
        addNanos.add(System.nanoTime() - t0);
      } catch (RuntimeException e) {
        last = e;
        // a runtime tears a failed sandbox down and tries again
        tryDel(net, pod, netns, containerId, null);
        sleep(1_000);
      }
    }
    if (result == null) {
      topology.remove(netns);
      throw new IllegalStateException("CNI ADD of " + key + " kept failing", last);
    }
    List<String> ips = new ArrayList<>();
    try {
      for (JsonNode ip : JSON.readTree(result).path("ips")) {
        ips.add(ip.path("address").asText().split("/")[0]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ManagedProcess container =
        netns.spawn(
            "http-" + name,
            List.of("/usr/bin/python3", "-c", HTTP_SERVER, name, Integer.toString(HTTP_PORT)));
    Running r =
        new Running(
            key, pod.getMetadata().getUid(), netns, containerId, ips, container, result, net);
    running.put(key, r);
    // readiness probe, from the node as a kubelet probes
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (Http.get(node.netns(), ips.getFirst(), HTTP_PORT, Duration.ofSeconds(1)).isEmpty()) {
      if (System.nanoTime() > deadline || !container.isAlive()) {
        throw new IllegalStateException(
            "pod " + key + " never answered its probe: " + container.tail(10));
      }
      sleep(100);
    }
    String now = Instant.now().toString();
    client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .editStatus(
            p -> {
              p.setStatus(
                  new PodStatusBuilder()
                      .withPhase("Running")
                      .withHostIP(node.internalIp())
                      .withPodIP(ips.getFirst())
                      .withPodIPs(ips.stream().map(PodIP::new).toList())
                      .withStartTime(now)
                      .withConditions(
                          condition("PodScheduled", now),
                          condition("Initialized", now),
                          condition("ContainersReady", now),
                          condition("Ready", now))
                      .build());
              return p;
            });
    LOG.info(node.name() + ": pod " + key + " running at " + ips);
  }

  private static PodCondition condition(String type, String now) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus("True")
        .withLastTransitionTime(now)
        .build();
  }

  private void stop(Running r, long preStopSeconds) {
    if (preStopSeconds > 0) {
      sleep(preStopSeconds * 1000);
    }
    r.container().stop();
    Pod dummy = null;
    tryDel(r.network(), dummy, r.netns(), r.containerId(), r.addResult());
    topology.remove(r.netns());
    running.remove(r.key());
    LOG.info(node.name() + ": pod " + r.key() + " stopped");
  }

  /** Finalizer off, then the kubelet's final delete (grace period 0). */
  private void release(Pod pod) {
    var op =
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName());
    // this pod, not one made since under the same name: the kubelet deletes with the pod's UID as
    // a precondition. The mock ignores preconditions and removes a deleted pod as soon as its last
    // finalizer goes, so the next pod of that name can exist before our delete: by name alone it
    // was deleted in its place (seen: CNI 4's re-created pod gone, never Ready)
    String uid = pod.getMetadata().getUid();
    try {
      op.edit(
          p -> {
            if (uid.equals(p.getMetadata().getUid())) {
              p.getMetadata().getFinalizers().remove(FINALIZER);
            }
            return p;
          });
      Pod now = op.get();
      if (now != null && uid.equals(now.getMetadata().getUid())) {
        op.withGracePeriod(0).delete();
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  // ---- CNI, as libcni runs a conflist

  private Path conflist() {
    try (Stream<Path> s = Files.list(node.cniConfDir())) {
      return s.filter(p -> p.toString().matches(".*\\.(conflist|conf|json)"))
          .sorted()
          .findFirst()
          .orElseThrow(
              () -> new IllegalStateException("no CNI configuration in " + node.cniConfDir()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String add(Network net, Pod pod, Node netns, String containerId) {
    ObjectNode list = readConflist(net);
    JsonNode prev = null;
    String out = null;
    for (JsonNode plugin : list.path("plugins")) {
      out = exec(net, "ADD", plugin, list, prev, pod, netns, containerId);
      try {
        prev = JSON.readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  private void tryDel(Network net, Pod pod, Node netns, String containerId, String prevResult) {
    ObjectNode list = readConflist(net);
    List<JsonNode> plugins = new ArrayList<>();
    list.path("plugins").forEach(plugins::add);
    JsonNode prev;
    try {
      prev = prevResult == null ? null : JSON.readTree(prevResult);
    } catch (IOException e) {
      prev = null;
    }
    for (JsonNode plugin : plugins.reversed()) {
      try {
        exec(net, "DEL", plugin, list, prev, pod, netns, containerId);
      } catch (RuntimeException e) {
        LOG.warning(node.name() + ": CNI DEL: " + e.getMessage());
      }
    }
  }

  private static ObjectNode readConflist(Network net) {
    try {
      return (ObjectNode) JSON.readTree(net.conflist().toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private final Map<String, String[]> podIdentity = new ConcurrentHashMap<>();

  private String exec(
      Network net,
      String command,
      JsonNode plugin,
      ObjectNode list,
      JsonNode prev,
      Pod pod,
      Node netns,
      String containerId) {
    ObjectNode conf = ((ObjectNode) plugin).deepCopy();
    conf.put("name", list.path("name").asText());
    conf.put("cniVersion", list.path("cniVersion").asText());
    if (prev != null) {
      conf.set("prevResult", prev);
    }
    String[] who =
        pod != null
            ? new String[] {
              pod.getMetadata().getNamespace(),
              pod.getMetadata().getName(),
              pod.getMetadata().getUid()
            }
            : podIdentity.getOrDefault(containerId, new String[] {"", "", ""});
    podIdentity.put(containerId, who);
    List<String> argv =
        new ArrayList<>(
            node.netns()
                .inNetns(List.of(net.binDir().resolve(plugin.path("type").asText()).toString())));
    ProcessBuilder pb = Programs.processBuilder(argv);
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().put("CNI_COMMAND", command);
    pb.environment().put("CNI_CONTAINERID", containerId);
    pb.environment().put("CNI_NETNS", "/var/run/netns/" + netns.netns());
    pb.environment().put("CNI_IFNAME", "eth0");
    pb.environment().put("CNI_PATH", net.binDir().toString());
    pb.environment()
        .put(
            "CNI_ARGS",
            "IgnoreUnknown=1;K8S_POD_NAMESPACE="
                + who[0]
                + ";K8S_POD_NAME="
                + who[1]
                + ";K8S_POD_INFRA_CONTAINER_ID="
                + containerId
                + ";K8S_POD_UID="
                + who[2]);
    try {
      Process p = pb.start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(JSON.writeValueAsBytes(conf));
      }
      String out;
      try (InputStream o = p.getInputStream()) {
        out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
      }
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("CNI " + command + " did not finish");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "CNI "
                + command
                + " of "
                + who[0]
                + "/"
                + who[1]
                + " exited "
                + p.exitValue()
                + ": "
                + out
                + err);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String containerId() {
    byte[] b = new byte[32];
    ThreadLocalRandom.current().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The pod's first address while it runs here. */
  public Optional<String> ipOf(String namespace, String name) {
    Running r = running.get(namespace + "/" + name);
    return r == null ? Optional.empty() : Optional.of(r.ips().getFirst());
  }

  @Override
  public void close() {
    worker.shutdownNow();
    try {
      worker.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Running r : running.values()) {
      r.container().stop();
    }
  }
}
