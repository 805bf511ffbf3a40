package dev.sart.testbed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A set of network namespaces joined by veth pairs, optionally through a bridge namespace.
 *
 * <p>Every namespace is named {@code sartt<pid>-<n>-<node>}: {@code sartt} marks the test bed,
 * {@code <pid>} is this JVM (the per-run prefix), {@code <n>} counts topologies in the run. Links
 * are created directly inside the namespaces, never in the host's, and disappear with them. {@link
 * #close()} stops every process started in the topology, removes the namespaces and the working
 * directory; {@link Sweeper} removes what crashed runs left behind.
 */
public final class Topology implements AutoCloseable {
  /** Marks everything the test bed creates. */
  public static final String MARK = "sartt";

  /** This run's prefix: the mark plus this JVM's PID. */
  public static final String RUN_PREFIX = MARK + ProcessHandle.current().pid();

  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final String id;
  private final String label;
  private final Path dir;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private final List<ManagedProcess> processes = new ArrayList<>();
  private Path preserveTo;
  private boolean closed;

  private Topology(String id, String label, Path dir) {
    this.id = id;
    this.label = label;
    this.dir = dir;
  }

  /** Creates an empty topology; the first one in a JVM also sweeps leftovers of crashed runs. */
  public static Topology create(String label) {
    Prerequisites.requireRoot();
    Prerequisites.requireCommands("ip");
    Sweeper.sweepOnce();
    String id = RUN_PREFIX + "-" + COUNTER.incrementAndGet();
    // Short path: UNIX socket paths (birdc, vtysh) are limited to 108 bytes.
    Path dir = Path.of("/tmp", id);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Topology(id, label, dir);
  }

  /** "sartt1234-1": the prefix of every namespace of this topology. */
  public String id() {
    return id;
  }

  public String label() {
    return label;
  }

  /** The working directory; each node has a sub-directory. */
  public Path dir() {
    return dir;
  }

  /** A new namespace with its loopback up. */
  public synchronized Node node(String name) {
    if (!name.matches("[a-z][a-z0-9]{0,11}")) {
      throw new IllegalArgumentException(
          "node names are 1-12 lower-case letters and digits: " + name);
    }
    if (nodes.containsKey(name)) {
      throw new IllegalArgumentException("node " + name + " exists already");
    }
    String netns = id + "-" + name;
    Path nodeDir = dir.resolve(name);
    try {
      Files.createDirectories(nodeDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Shell.run("ip", "netns", "add", netns);
    Node node = new Node(this, name, netns, nodeDir);
    nodes.put(name, node);
    Shell.run("ip", "-n", netns, "link", "set", "lo", "up");
    // Addresses are usable at once: no duplicate address detection on the links made later
    // (FRR resets an IPv6 session whose link-local address is still tentative).
    for (String scope : List.of("all", "default")) {
      Shell.run(
          "ip",
          "netns",
          "exec",
          netns,
          "sysctl",
          "-q",
          "-w",
          "net.ipv6.conf." + scope + ".accept_dad=0");
    }
    return node;
  }

  /**
   * A namespace holding a Linux bridge {@code br0}, for LAN-like topologies (see {@link #attach}).
   */
  public Node bridge(String name) {
    Node br = node(name);
    Shell.run("ip", "-n", br.netns(), "link", "add", "br0", "type", "bridge");
    Shell.run("ip", "-n", br.netns(), "link", "set", "br0", "up");
    return br;
  }

  /** A veth pair between two nodes, both ends up. */
  public Link link(Node a, Node b) {
    String aName = a.nextInterfaceName();
    String bName = b.nextInterfaceName();
    Shell.run(
        "ip", "-n", a.netns(), "link", "add", aName, "type", "veth", "peer", "name", bName, "netns",
        b.netns());
    Shell.run("ip", "-n", a.netns(), "link", "set", aName, "up");
    Shell.run("ip", "-n", b.netns(), "link", "set", bName, "up");
    return new Link(a, aName, b, bName);
  }

  /**
   * A veth pair from {@code node} into the bridge namespace, its bridge end enslaved to {@code
   * br0}.
   */
  public Link attach(Node node, Node bridge) {
    Link l = link(node, bridge);
    Shell.run("ip", "-n", bridge.netns(), "link", "set", l.bName(), "master", "br0");
    return l;
  }

  /**
   * Removes one namespace of the topology before the others (a pod that goes away): ends what runs
   * in it, deletes it and its directory. Processes started with {@link Node#spawn} in it should be
   * stopped first.
   */
  public synchronized void remove(Node node) {
    if (nodes.get(node.name()) != node) {
      throw new IllegalArgumentException(node + " is not a node of " + id);
    }
    Sweeper.removeNamespace(node.netns());
    nodes.remove(node.name());
    try {
      deleteTree(node.dir());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized List<Node> nodes() {
    return List.copyOf(nodes.values());
  }

  /** The processes started in this topology, in start order. */
  public synchronized List<ManagedProcess> processes() {
    return List.copyOf(processes);
  }

  synchronized void register(ManagedProcess p) {
    if (closed) {
      p.stop();
      throw new IllegalStateException("topology " + id + " is closed");
    }
    processes.add(p);
  }

  /**
   * On {@link #close()}, move the working directory (configs, logs) here instead of deleting it.
   */
  public synchronized void preserveFilesIn(Path target) {
    this.preserveTo = target;
  }

  /**
   * Stops every process (by PID, last started first), ends whatever those left running in the
   * namespaces, deletes the namespaces and the working directory. Safe to call twice.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<RuntimeException> errors = new ArrayList<>();
    for (ManagedProcess p : processes.reversed()) {
      try {
        p.stop();
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    for (Node n : nodes.values()) {
      try {
        Sweeper.removeNamespace(n.netns());
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    try {
      if (preserveTo != null) {
        Files.createDirectories(preserveTo.getParent());
        Shell.run("cp", "-a", dir.toString(), preserveTo.toString());
      }
      deleteTree(dir);
    } catch (IOException | RuntimeException e) {
      errors.add(e instanceof RuntimeException r ? r : new UncheckedIOException((IOException) e));
    }
    if (!errors.isEmpty()) {
      IllegalStateException e = new IllegalStateException("cleaning up topology " + id + " failed");
      errors.forEach(e::addSuppressed);
      throw e;
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public String toString() {
    return id + " (" + label + ")";
  }
}
