package dev.sart.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sartd bgp} running as its own process in a node, driven with the {@code sart} CLI inside
 * the node.
 */
final class SartdNode {
  private static final String JAVA = ProcessHandle.current().info().command().orElse("java");
  private static final String CLASSPATH = System.getProperty("java.class.path");

  final Node node;
  final ManagedProcess process;

  private SartdNode(Node node, ManagedProcess process) {
    this.node = node;
    this.process = process;
  }

  static SartdNode start(Node node, String... args) {
    return startAs(node, "sartd", args);
  }

  /** The same under another process name (a restart: each run keeps its own log). */
  static SartdNode startAs(Node node, String processName, String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                JAVA,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                CLASSPATH,
                "dev.sart.sartd.Sartd",
                "bgp"));
    argv.addAll(List.of(args));
    SartdNode s = new SartdNode(node, node.spawn(processName, argv));
    // a JVM's start and the CLI's take tens of seconds on a loaded 2-CPU machine
    await("sartd API up")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .failFast("sartd exited:\n" + s.process.tail(30), () -> !s.process.isAlive())
        .until(() -> s.tryCli("bgp", "global", "health").ok());
    return s;
  }

  Shell.Result tryCli(String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                JAVA,
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                CLASSPATH,
                "dev.sart.cli.Sart"));
    argv.addAll(List.of(args));
    return node.tryExec(argv.toArray(String[]::new));
  }

  /** Runs {@code sart args...} in the node; fails with the CLI's own error when it fails. */
  String cli(String... args) {
    Shell.Result r = tryCli(args);
    if (!r.ok()) {
      throw new AssertionError(
          "sart " + String.join(" ", args) + " exited " + r.exitCode() + ": " + r.stderr());
    }
    return r.stdout();
  }

  JsonNode json(String... args) {
    List<String> all = new ArrayList<>(List.of("-o", "json"));
    all.addAll(List.of(args));
    try {
      return new ObjectMapper().readTree(cli(all.toArray(String[]::new)));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  String state(String neighbor) {
    return json("bgp", "neighbor", "get", neighbor).get("state").asText();
  }

  /** Our BFD session with {@code neighbor} as the CLI shows it ("up", "down", ...), or "none". */
  String bfdState(String neighbor) {
    JsonNode b = json("bgp", "neighbor", "get", neighbor).path("bfd");
    return b.isMissingNode() ? "none" : b.path("state").asText();
  }

  void awaitEstablished(String neighbor) {
    await("sart: " + neighbor + " Established")
        .atMost(Duration.ofSeconds(40))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> "Established".equals(state(neighbor)));
  }

  /**
   * The paths of the Loc-RIB for a prefix, as {@code sart bgp global rib get -o json} prints them.
   */
  List<JsonNode> paths(String afi, String prefix) {
    List<JsonNode> out = new ArrayList<>();
    json("bgp", "global", "rib", "-a", afi, "get")
        .get("paths")
        .forEach(
            p -> {
              if (p.get("nlri").asText().equals(prefix)) {
                out.add(p);
              }
            });
    return out;
  }
}
