package dev.sart.agent.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Programs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Plays the container runtime: executes the built sart-cni plugin with the CNI_* environment and
 * the network configuration on stdin (CNI spec §"Protocol"), or runs the same plugin code in this
 * JVM; checks results against the spec's JSON shapes.
 */
public final class CniRuntime {
  public static final ObjectMapper JSON = new ObjectMapper();

  /** Built by sart-cni's package phase (./mvnw -pl kube-agent -am verify builds it first). */
  static final Path PLUGIN =
      Path.of("../sart-cni/target/dist/sart-cni").toAbsolutePath().normalize();

  /** What the plugin printed and its exit code. */
  public record Outcome(int code, String stdout) {
    public JsonNode json() {
      try {
        return JSON.readTree(stdout);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + stdout, e);
      }
    }

    public Outcome ok() {
      assertEquals(0, code, "exit code; output: " + stdout);
      return this;
    }

    /** The error JSON of CNI spec §"Error" with this code, exit code 1. */
    public JsonNode error(int expected) {
      assertEquals(1, code, "exit code; output: " + stdout);
      JsonNode e = json();
      assertEquals(expected, e.path("code").asInt(-1), stdout);
      assertTrue(e.path("cniVersion").isTextual() && e.path("msg").isTextual(), stdout);
      onlyKeys(e, Set.of("cniVersion", "code", "msg", "details"));
      return e;
    }
  }

  private final Path socket;
  private final String name;

  public CniRuntime(Path socket) {
    this(socket, "sart-network");
  }

  CniRuntime(Path socket, String name) {
    this.socket = socket;
    this.name = name;
  }

  public String conf(String version) {
    return "{\"cniVersion\":\""
        + version
        + "\",\"name\":\""
        + name
        + "\",\"type\":\"sart-cni\",\"endpoint\":\""
        + socket
        + "\",\"timeout\":60}";
  }

  /** The configuration with prevResult (CHECK, DEL) or other keys added at the top level. */
  static String with(String conf, String key, String rawJson) {
    return conf.substring(0, conf.length() - 1) + ",\"" + key + "\":" + rawJson + "}";
  }

  public static Map<String, String> env(
      String command, String containerId, String netns, String ifname) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CNI_COMMAND", command);
    if (containerId != null) {
      env.put("CNI_CONTAINERID", containerId);
    }
    if (netns != null) {
      env.put("CNI_NETNS", netns);
    }
    if (ifname != null) {
      env.put("CNI_IFNAME", ifname);
    }
    env.put("CNI_PATH", "/opt/cni/bin");
    return env;
  }

  /** Executes the plugin binary exactly as a runtime does. */
  public static Outcome exec(Map<String, String> env, String stdin) {
    if (!Files.isExecutable(PLUGIN)) {
      fail("the plugin is not built at " + PLUGIN + ": run ./mvnw -B -o -pl kube-agent -am verify");
    }
    ProcessBuilder pb = Programs.processBuilder(PLUGIN.toString());
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().putAll(env);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    try {
      Process p = pb.start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      byte[] out;
      try (InputStream o = p.getInputStream()) {
        out = o.readAllBytes();
      }
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("the plugin did not finish");
      }
      return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Runs the plugin's code in this JVM (the storm: hundreds of calls without hundreds of JVM
   * starts).
   */
  static Outcome inProcess(Map<String, String> env, String stdin) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      int code = new dev.sart.cni.Plugin(env, stdin.getBytes(StandardCharsets.UTF_8), out).run();
      return new Outcome(code, out.toString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  static void onlyKeys(JsonNode n, Set<String> allowed) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      assertTrue(allowed.contains(k), "unexpected key " + k + " in " + n);
    }
  }

  /**
   * Checks an ADD result against the spec's shape for {@code version}: 0.3.x/0.4.0 IPs carry
   * "version", 1.x do not; interface indexes point into "interfaces"; addresses are CIDRs.
   */
  public static void validateResult(String version, JsonNode r) {
    onlyKeys(r, Set.of("cniVersion", "interfaces", "ips", "routes", "dns"));
    assertEquals(version, r.path("cniVersion").asText());
    JsonNode ifs = r.path("interfaces");
    assertTrue(ifs.isArray() && !ifs.isEmpty(), "interfaces: " + r);
    boolean v11 = version.equals("1.1.0");
    for (JsonNode i : ifs) {
      onlyKeys(i, v11 ? Set.of("name", "mac", "sandbox", "mtu") : Set.of("name", "mac", "sandbox"));
      assertTrue(i.path("name").isTextual(), "interface name: " + i);
      assertTrue(i.path("mac").asText().matches("([0-9a-f]{2}:){5}[0-9a-f]{2}"), "mac: " + i);
      if (v11) {
        assertTrue(i.path("mtu").isInt(), "1.1.0 reports the MTU: " + i);
      }
    }
    boolean legacy = version.startsWith("0.");
    assertTrue(r.path("ips").isArray() && !r.path("ips").isEmpty(), "ips: " + r);
    for (JsonNode ip : r.path("ips")) {
      onlyKeys(
          ip,
          legacy
              ? Set.of("version", "interface", "address", "gateway")
              : Set.of("interface", "address", "gateway"));
      String address = ip.path("address").asText();
      assertTrue(address.matches("[0-9a-f.:]+/\\d+"), "address: " + ip);
      if (legacy) {
        assertEquals(
            address.contains(":") ? "6" : "4",
            ip.path("version").asText(),
            "0.x ips carry version: " + ip);
      }
      int idx = ip.path("interface").asInt(-1);
      assertTrue(idx >= 0 && idx < ifs.size(), "interface index: " + ip);
      assertTrue(
          ifs.get(idx).path("sandbox").isTextual(),
          "the address is on the container's interface: " + r);
    }
    for (JsonNode rt : r.path("routes")) {
      onlyKeys(rt, Set.of("dst", "gw"));
      assertTrue(rt.path("dst").asText().matches("[0-9a-f.:]+/\\d+"), "route: " + rt);
    }
  }
}
