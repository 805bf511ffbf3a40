package dev.sart.testbed.cluster;

import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A node of the cluster on one machine: a network namespace linked to both ToRs, its Node object,
 * {@code sartd node} inside it, and the sart-cni plugin installed into its own CNI directories.
 *
 * @param name the Node object's name ({@code node1}, ...)
 * @param netns the namespace
 * @param internalIp the Node's InternalIP: its address on ToR 1's LAN (also the pods' gateway)
 * @param addressB its address on ToR 2's LAN
 * @param address6 its IPv6 address on ToR 1's LAN (also an InternalIP, the IPv6 pods' gateway)
 * @param address6B its IPv6 address on ToR 2's LAN
 * @param asn its AS (label {@code sart.terassyi.net/asn})
 * @param uplinks its interfaces to the two LANs
 */
public record ClusterNode(
    String name,
    Node netns,
    String internalIp,
    String addressB,
    String address6,
    String address6B,
    long asn,
    List<String> uplinks,
    Holder sartd) {

  /**
   * The node's processes (replaced when a scenario restarts them): {@code sartd node}, or for a
   * split node {@code sartd bgp} (as {@code process}), {@code sartd fib} and {@code sartd agent}.
   */
  public static final class Holder {
    volatile ManagedProcess process;
    volatile ManagedProcess fib;
    volatile ManagedProcess agent;
  }

  /** {@code sartd node}, or the speaker of a split node. */
  public ManagedProcess process() {
    return sartd.process;
  }

  /** A split node's {@code sartd agent}; null for a node running {@code sartd node}. */
  public ManagedProcess agent() {
    return sartd.agent;
  }

  /** Whether the node runs speaker, FIB and agent as processes of their own. */
  public boolean split() {
    return sartd.agent != null;
  }

  /** The link-local IPv6 address of one of its interfaces (empty when it has none). */
  public String linkLocal(String ifname) {
    String out =
        netns.tryExec("ip", "-6", "-o", "addr", "show", "dev", ifname, "scope", "link").stdout();
    for (String word : out.split("\\s+")) {
      if (word.startsWith("fe80:")) {
        return word.substring(0, word.indexOf('/'));
      }
    }
    return "";
  }

  /** {@code /opt/cni/bin} of this node. */
  public Path cniBinDir() {
    return netns.dir().resolve("opt/cni/bin");
  }

  /** {@code /etc/cni/net.d} of this node. */
  public Path cniConfDir() {
    return netns.dir().resolve("etc/cni/net.d");
  }

  /** The agent's CNI socket. */
  public Path cniSocket() {
    return netns.dir().resolve("sart.sock");
  }

  /** Runs the sart CLI inside the node (its speaker's API on 127.0.0.1:5000). */
  public Shell.Result sart(String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                Launch.java(),
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                Launch.classpathArgument(),
                "dev.sart.cli.Sart"));
    argv.addAll(List.of(args));
    return netns.tryExec(argv.toArray(String[]::new));
  }

  @Override
  public String toString() {
    return name + "(" + internalIp + ")";
  }
}
