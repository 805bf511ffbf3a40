package dev.sart.testbed;

import dev.sart.net.IpPrefix;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A host of the topology: one network namespace, with a working directory for configs, sockets and
 * logs.
 */
public final class Node {
  /** Where test traffic may go: the documentation ranges, ULA, loopback and link-local. */
  private static final List<IpPrefix> ALLOWED =
      List.of(
          IpPrefix.parse("192.0.2.0/24"),
          IpPrefix.parse("198.51.100.0/24"),
          IpPrefix.parse("203.0.113.0/24"),
          IpPrefix.parse("2001:db8::/32"),
          IpPrefix.parse("fd00::/8"),
          IpPrefix.parse("127.0.0.0/8"),
          IpPrefix.parse("::1/128"),
          IpPrefix.parse("fe80::/10"));

  private final Topology topology;
  private final String name;
  private final String netns;
  private final Path dir;
  private int nextInterface = 1;

  Node(Topology topology, String name, String netns, Path dir) {
    this.topology = topology;
    this.name = name;
    this.netns = netns;
    this.dir = dir;
  }

  /** The node's short name within its topology ("r1"). */
  public String name() {
    return name;
  }

  /** The network namespace's name, which carries the run's prefix. */
  public String netns() {
    return netns;
  }

  /** The node's working directory (configs, control sockets, logs). */
  public Path dir() {
    return dir;
  }

  public Topology topology() {
    return topology;
  }

  /** Runs a command inside the namespace and returns its stdout; throws when it fails. */
  public String exec(String... argv) {
    return Shell.run(inNetns(List.of(argv)));
  }

  /** Runs a command inside the namespace and returns its outcome whatever the exit code. */
  public Shell.Result tryExec(String... argv) {
    return Shell.exec(inNetns(List.of(argv)));
  }

  /** The argv that runs {@code argv} inside this namespace. */
  public List<String> inNetns(List<String> argv) {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", netns));
    cmd.addAll(argv);
    return cmd;
  }

  /**
   * Adds an address to an interface of this node. Only documentation ranges, ULA (fd00::/8),
   * loopback and link-local are accepted, so a test cannot leak traffic anywhere real. IPv6
   * addresses skip duplicate address detection so they are usable at once.
   */
  public Node address(String ifname, String cidr) {
    IpPrefix net = IpPrefix.parse(cidr);
    String host = cidr.substring(0, cidr.indexOf('/') < 0 ? cidr.length() : cidr.indexOf('/'));
    IpPrefix hostPrefix = IpPrefix.parse(host);
    if (ALLOWED.stream().noneMatch(r -> contains(r, hostPrefix))) {
      throw new IllegalArgumentException(cidr + " is outside the ranges tests may use " + ALLOWED);
    }
    List<String> cmd =
        new ArrayList<>(List.of("ip", "-n", netns, "address", "add", cidr, "dev", ifname));
    if (!net.isIpv4()) {
      cmd.add("nodad");
    }
    Shell.run(cmd);
    return this;
  }

  /** Adds a route in the main table, e.g. {@code route("203.0.113.0/24", "192.0.2.1")}. */
  public Node route(String destination, String via) {
    Shell.run("ip", "-n", netns, "route", "add", destination, "via", via);
    return this;
  }

  /** Starts a long-running program inside the namespace; the topology stops it when it closes. */
  public ManagedProcess spawn(String processName, List<String> argv) {
    return spawn(processName, argv, Map.of());
  }

  /** Starts a long-running program with extra environment variables. */
  public ManagedProcess spawn(String processName, List<String> argv, Map<String, String> env) {
    ManagedProcess p =
        ManagedProcess.start(this, processName, argv, env, dir.resolve(processName + ".log"));
    topology.register(p);
    return p;
  }

  /** A fresh interface name for this node ("eth1", "eth2", ...). */
  String nextInterfaceName() {
    return "eth" + nextInterface++;
  }

  static boolean contains(IpPrefix range, IpPrefix p) {
    return range.isIpv4() == p.isIpv4()
        && p.length() >= range.length()
        && new IpPrefix(p.address(), range.length()).equals(range);
  }

  @Override
  public String toString() {
    return name + "[" + netns + "]";
  }
}
