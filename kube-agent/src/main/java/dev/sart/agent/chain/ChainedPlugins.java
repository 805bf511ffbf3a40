package dev.sart.agent.chain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.cni.Frame;
import dev.sart.cni.Plugin;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent's side of the chained plugins {@code sart-veth} and {@code sart-router} (issue 27, the
 * meta-plugins design): the plugin forwards the runtime's call unparsed with its name in the frame
 * ({@link Frame#PLUGIN}); this parses the configuration, runs the command over netlink and answers
 * with the bytes to print and the exit code.
 *
 * <p>CNI spec §"Chained plugins": ADD returns prevResult extended with the interfaces it made; DEL
 * succeeds when things are gone; CHECK verifies the kernel. {@code log_options} is accepted: the
 * calls are logged in the agent's log with the container id.
 */
public final class ChainedPlugins implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ChainedPlugins.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] NOTHING = new byte[0];

  /** What the plugin prints and its exit code. */
  public record Response(int exitCode, byte[] stdout) {}

  private final Netns hostNs;
  private final Netlink host;
  private final Veth veth;
  private final Router router;

  /**
   * Works on the node's namespace {@code hostNetns} (null: the agent's own); {@code nodeAddresses}
   * (the agent's configured node addresses) are among the addresses the pods get routes to.
   */
  public ChainedPlugins(Path hostNetns, List<InetAddress> nodeAddresses) {
    this.hostNs = hostNetns == null ? Netns.current() : Netns.open(hostNetns);
    this.host = Netlink.open(hostNs);
    List<InetAddress> configured = List.copyOf(nodeAddresses);
    this.veth = new Veth(host, () -> Kernel.hostAddresses(host, configured));
    this.router = new Router(host, () -> Kernel.hostAddresses(host, configured));
  }

  /** Whether a forwarded call comes from a chained plugin (its frame names it). */
  public static boolean isChained(Map<String, String> env) {
    return env.containsKey(Frame.PLUGIN) && !Plugin.SART_CNI.equals(env.get(Frame.PLUGIN));
  }

  /** One call as the plugin forwarded it. */
  public Response handle(Map<String, String> env, byte[] stdin) {
    String plugin = env.getOrDefault(Frame.PLUGIN, "");
    String version = "1.1.0";
    String command = env.getOrDefault("CNI_COMMAND", "");
    try {
      if (!Plugin.chained(plugin)) {
        throw new ChainException(
            ChainException.INVALID_ENVIRONMENT,
            "unknown chained plugin " + plugin,
            "this agent serves sart-cni, sart-veth and sart-router");
      }
      JsonNode conf;
      try {
        conf = JSON.readTree(stdin);
      } catch (java.io.IOException e) {
        throw new ChainException(
            ChainException.DECODE, "failed to decode the network configuration", e.getMessage());
      }
      String v = conf == null ? null : conf.path("cniVersion").asText(null);
      if (v != null && ChainConfig.VERSIONS.contains(v)) {
        version = v;
      }
      ChainConfig c = ChainConfig.parse(plugin, env, conf);
      Response r = command(c);
      LOG.fine(
          () ->
              plugin
                  + " "
                  + command
                  + " container="
                  + c.containerId()
                  + " ifname="
                  + c.ifname()
                  + " ok");
      return r;
    } catch (ChainException e) {
      LOG.info(
          () ->
              plugin
                  + " "
                  + command
                  + " failed container="
                  + env.getOrDefault("CNI_CONTAINERID", "")
                  + " ifname="
                  + env.getOrDefault("CNI_IFNAME", "")
                  + " code="
                  + e.code()
                  + " msg=\""
                  + e.getMessage()
                  + "\"");
      return new Response(1, errorJson(version, e));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, plugin + " " + command + " failed", e);
      return new Response(
          1,
          errorJson(
              version,
              new ChainException(
                  ChainException.INTERNAL, "internal error in the sart agent", e.toString())));
    }
  }

  private Response command(ChainConfig c) throws ChainException {
    boolean isVeth = c.plugin().equals(Plugin.SART_VETH);
    switch (c.command()) {
      case "ADD" -> {
        if (c.skipCall()) {
          return new Response(0, requirePrev(c).toJson(c.cniVersion(), List.of(), null, null));
        }
        return new Response(0, isVeth ? veth.add(c) : router.add(c));
      }
      case "DEL" -> {
        if (!c.skipCall()) {
          if (isVeth) {
            veth.del(c);
          } else {
            router.del(c);
          }
        }
        return new Response(0, NOTHING);
      }
      case "CHECK" -> {
        if (!c.skipCall()) {
          if (isVeth) {
            veth.check(c);
          } else {
            router.check(c);
          }
        }
        return new Response(0, NOTHING);
      }
      case "STATUS" -> {
        // ready whenever the agent answers: these plugins allocate nothing
        return new Response(0, NOTHING);
      }
      case "GC" -> {
        // sart-router's routes leave with the overlay interface's veth; sart-veth's host ends
        // outlive a pod only if its namespace is kept
        if (isVeth) {
          veth.gc(c);
        }
        return new Response(0, NOTHING);
      }
      case "VERSION" -> {
        ObjectNode v = JSON.createObjectNode().put("cniVersion", c.cniVersion());
        ChainConfig.VERSIONS.forEach(v.withArray("supportedVersions")::add);
        return new Response(0, (v + "\n").getBytes(StandardCharsets.UTF_8));
      }
      default ->
          throw new ChainException(
              ChainException.INVALID_ENVIRONMENT,
              "unknown CNI_COMMAND " + c.command(),
              c.plugin() + " understands ADD, DEL, CHECK, STATUS, GC and VERSION");
    }
  }

  static PrevResult requirePrev(ChainConfig c) throws ChainException {
    if (c.prevResult() == null) {
      throw ChainException.config(
          "prevResult",
          "is missing: "
              + c.plugin()
              + " is a chained plugin and follows a main plugin in a conflist");
    }
    return c.prevResult();
  }

  /** The previous result's addresses on CNI_IFNAME; none is an error naming it. */
  static List<PrevResult.IpConfig> ipsOn(PrevResult prev, ChainConfig c) throws ChainException {
    List<PrevResult.IpConfig> ips = prev.ipsOn(c.ifname());
    if (ips.isEmpty()) {
      throw ChainException.config(
          "prevResult", "has no address on " + c.ifname() + " (CNI_IFNAME) for " + c.plugin());
    }
    return ips;
  }

  static Link podLink(Netlink pod, String name, ChainConfig c) throws ChainException {
    return pod.links()
        .find(name)
        .orElseThrow(
            () ->
                new ChainException(
                    ChainException.INVALID_ENVIRONMENT,
                    "CNI_IFNAME " + name + " is not in " + c.netns(),
                    c.plugin() + " follows the plugin that made it"));
  }

  static byte[] errorJson(String version, ChainException e) {
    ObjectNode root = JSON.createObjectNode();
    root.put("cniVersion", version);
    root.put("code", e.code());
    root.put("msg", e.getMessage());
    if (!e.details().isEmpty()) {
      root.put("details", e.details());
    }
    return (root + "\n").getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    host.close();
    hostNs.close();
  }
}
