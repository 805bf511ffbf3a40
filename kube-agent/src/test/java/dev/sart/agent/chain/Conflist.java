package dev.sart.agent.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Plays the container runtime for one network of a pod, as libcni runs a conflist (CNI spec
 * §"Network configuration lists"): ADD calls the plugins in order, each with the previous result as
 * {@code prevResult}; CHECK and DEL (in reverse order) give every plugin the ADD's final result.
 * The plugins are executed inside the node's namespace: the sart ones from sart-cni's build, the
 * others (macvlan, host-local) from Debian's containernetworking-plugins.
 */
final class Conflist {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Path DIST = Path.of("../sart-cni/target/dist").toAbsolutePath().normalize();
  static final Path REFERENCE = Path.of("/usr/lib/cni");

  /** What one plugin printed and its exit code. */
  record Outcome(String plugin, int code, String stdout) {
    JsonNode json() {
      try {
        return JSON.readTree(stdout);
      } catch (IOException e) {
        throw new AssertionError(plugin + " printed no JSON: " + stdout, e);
      }
    }
  }

  private final Node node;
  private final String name;
  private final String version;
  private final List<ObjectNode> plugins;

  Conflist(Node node, String name, String version, List<ObjectNode> plugins) {
    this.node = node;
    this.name = name;
    this.version = version;
    this.plugins = plugins;
  }

  static ObjectNode plugin(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** ADD through every plugin; each must succeed. Returns the final result. */
  JsonNode add(String containerId, Node pod, String ifname) {
    JsonNode prev = null;
    for (ObjectNode p : plugins) {
      Outcome o = exec("ADD", p, prev, containerId, pod, ifname);
      assertEquals(0, o.code(), o.plugin() + " ADD: " + o.stdout());
      prev = o.json();
    }
    return prev;
  }

  /** CHECK through every plugin with the ADD's result; the first failure, or null. */
  Outcome check(String containerId, Node pod, String ifname, JsonNode result) {
    for (ObjectNode p : plugins) {
      Outcome o = exec("CHECK", p, result, containerId, pod, ifname);
      if (o.code() != 0) {
        return o;
      }
    }
    return null;
  }

  /** DEL through every plugin in reverse order; each must succeed. */
  void del(String containerId, Node pod, String ifname, JsonNode result) {
    for (ObjectNode p : plugins.reversed()) {
      Outcome o = exec("DEL", p, result, containerId, pod, ifname);
      assertEquals(0, o.code(), o.plugin() + " DEL: " + o.stdout());
    }
  }

  /** One plugin, one command, as a runtime executes it (environment + netconf on stdin). */
  Outcome exec(
      String command,
      ObjectNode plugin,
      JsonNode prev,
      String containerId,
      Node pod,
      String ifname) {
    ObjectNode conf = plugin.deepCopy();
    conf.put("cniVersion", version);
    conf.put("name", name);
    if (prev != null) {
      conf.set("prevResult", prev);
    }
    String type = plugin.path("type").asText();
    Path binary = type.startsWith("sart-") ? DIST.resolve(type) : REFERENCE.resolve(type);
    if (!Files.isExecutable(binary)) {
      fail(binary + " is not there: ./mvnw -B -o -pl kube-agent -am verify builds sart-cni first");
    }
    ProcessBuilder pb = Programs.processBuilder(node.inNetns(List.of(binary.toString())));
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().put("CNI_COMMAND", command);
    pb.environment().put("CNI_CONTAINERID", containerId);
    pb.environment().put("CNI_NETNS", pod == null ? "" : "/var/run/netns/" + pod.netns());
    pb.environment().put("CNI_IFNAME", ifname);
    pb.environment().put("CNI_PATH", REFERENCE.toString());
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    try {
      Process p = pb.start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(JSON.writeValueAsBytes(conf));
      }
      byte[] out;
      try (InputStream o = p.getInputStream()) {
        out = o.readAllBytes();
      }
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail(type + " did not finish");
      }
      return new Outcome(type, p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The names of a result's interfaces, in order. */
  static List<String> interfaces(JsonNode result) {
    List<String> names = new ArrayList<>();
    result.path("interfaces").forEach(i -> names.add(i.path("name").asText()));
    return names;
  }
}
