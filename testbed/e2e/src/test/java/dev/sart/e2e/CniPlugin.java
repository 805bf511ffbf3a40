package dev.sart.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The sart-cni plugin's main ({@code dev.sart.cni.SartCni}, what sart-cni's launcher runs) executed
 * as a runtime executes a plugin (CNI spec, "Execution Protocol"): only the CNI_* environment, the
 * network configuration on stdin, the result on stdout.
 */
final class CniPlugin {
  private CniPlugin() {}

  /** The network configuration naming the agent's socket. */
  static String netconf(Path socket, String cniVersion) {
    return "{\"cniVersion\":\""
        + cniVersion
        + "\",\"name\":\"sart-network\",\"type\":\"sart-cni\",\"endpoint\":\""
        + socket
        + "\",\"timeout\":60}";
  }

  /**
   * The environment of a {@code command} for pod {@code default/podName} in {@code pod}'s netns.
   */
  static Map<String, String> env(String command, String containerId, Node pod, String podName) {
    return Map.of(
        "CNI_COMMAND",
        command,
        "CNI_CONTAINERID",
        containerId,
        "CNI_NETNS",
        "/var/run/netns/" + pod.netns(),
        "CNI_IFNAME",
        "eth0",
        "CNI_PATH",
        "/opt/cni/bin",
        "CNI_ARGS",
        "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME="
            + podName
            + ";K8S_POD_INFRA_CONTAINER_ID="
            + containerId);
  }

  /** Runs the plugin; asserts it ends with {@code exit}; returns its stdout. */
  static String run(Map<String, String> env, String stdin, int exit) throws Exception {
    ProcessBuilder pb = Programs.processBuilder(JavaMains.tool("dev.sart.cni.SartCni"));
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().putAll(env);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    String out;
    try (InputStream o = p.getInputStream()) {
      out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the plugin did not finish");
    assertEquals(exit, p.exitValue(), "sart-cni " + env.get("CNI_COMMAND") + ": " + out);
    return out;
  }
}
