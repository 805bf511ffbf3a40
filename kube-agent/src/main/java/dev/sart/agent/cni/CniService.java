package dev.sart.agent.cni;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.agent.ipam.Allocation;
import dev.sart.agent.ipam.Attachment;
import dev.sart.agent.ipam.Ipam;
import dev.sart.agent.ipam.IpamException;
import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The CNI commands (CNI spec §"CNI operations"), one method each, reading top to bottom. Calls for
 * one container id are serialised; others run in parallel.
 */
public final class CniService {
  private static final Logger LOG = Logger.getLogger(CniService.class.getName());
  private static final byte[] NOTHING = new byte[0];

  /** What the plugin prints and its exit code. */
  public record Response(int exitCode, byte[] stdout) {}

  private final Ipam ipam;
  private final PodNetwork network;
  private final KeyedLock locks = new KeyedLock();
  private volatile CniMetrics metrics;
  private volatile dev.sart.agent.chain.ChainedPlugins chained;

  CniService(Ipam ipam, PodNetwork network) {
    this.ipam = ipam;
    this.network = network;
  }

  /**
   * Handles one invocation as the plugin forwarded it: the CNI_* environment and the raw netconf.
   */
  public Response handle(Map<String, String> env, byte[] stdin) {
    Phases phases = new Phases();
    Response r = handle(env, stdin, phases);
    phases.runLater();
    return r;
  }

  Response handle(Map<String, String> env, byte[] stdin, Phases phases) {
    long start = System.nanoTime();
    Response r =
        dev.sart.agent.chain.ChainedPlugins.isChained(env)
            ? chained(env, stdin)
            : command(env, stdin, phases);
    CniMetrics m = metrics;
    if (m != null) {
      m.record(env.get("CNI_COMMAND"), r, System.nanoTime() - start);
    }
    return r;
  }

  /** The pod IPAM this service allocates from. */
  Ipam ipam() {
    return ipam;
  }

  /** Serves the chained plugins sart-veth and sart-router from now on. */
  void chained(dev.sart.agent.chain.ChainedPlugins plugins) {
    chained = plugins;
  }

  /** A chained plugin's call, serialised with the container's other calls. */
  private Response chained(Map<String, String> env, byte[] stdin) {
    dev.sart.agent.chain.ChainedPlugins plugins = chained;
    if (plugins == null) {
      return new Response(
          1,
          CniResult.errorJson(
              versionOf(null),
              new CniException(
                  CniException.INVALID_ENVIRONMENT,
                  env.get(dev.sart.cni.Frame.PLUGIN) + " is not served by this CNI server",
                  "")));
    }
    try {
      dev.sart.agent.chain.ChainedPlugins.Response r =
          locks.with(env.getOrDefault("CNI_CONTAINERID", ""), () -> plugins.handle(env, stdin));
      return new Response(r.exitCode(), r.stdout());
    } catch (CniException e) {
      throw new IllegalStateException(e); // the body throws none
    }
  }

  /** Counts every call from now on (sart's CNI call metrics). */
  void metrics(CniMetrics m) {
    metrics = m;
  }

  private Response command(Map<String, String> env, byte[] stdin, Phases phases) {
    String version = "1.1.0";
    try {
      // parsed once: the version for an error's shape comes from the same tree as the request
      JsonNode conf;
      try {
        conf = CniRequest.JSON.readTree(stdin);
      } catch (java.io.IOException e) {
        throw new CniException(
            CniException.DECODE, "failed to decode the network configuration", e.getMessage());
      }
      version = versionOf(conf);
      CniRequest r = CniRequest.parse(env, conf);
      phases.mark("parse");
      return switch (r.command()) {
        case "ADD" -> locks.with(r.containerId(), () -> add(r, phases));
        case "DEL" -> locks.with(r.containerId(), () -> del(r));
        case "CHECK" -> locks.with(r.containerId(), () -> check(r));
        case "STATUS" -> status(r);
        case "GC" -> gc(r);
        default ->
            throw new CniException(
                CniException.INVALID_ENVIRONMENT, "unknown CNI_COMMAND " + r.command(), "");
      };
    } catch (CniException e) {
      return new Response(1, CniResult.errorJson(version, e));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "CNI " + env.get("CNI_COMMAND") + " failed", e);
      return new Response(
          1,
          CniResult.errorJson(
              version,
              new CniException(
                  CniException.INTERNAL, "internal error in the sart agent", e.toString())));
    }
  }

  private static String versionOf(JsonNode conf) {
    String v = conf == null ? null : conf.path("cniVersion").asText(null);
    return v != null && CniVersion.SUPPORTED.contains(v) ? v : "1.1.0";
  }

  private String pool(CniRequest r) throws CniException {
    String pool = ipam.poolFor(r.args(), r.pool());
    if (pool == null) {
      // sart: DefaultPoolNotFound is TryAgainLater: an auto-assign pool may be created later
      throw new CniException(
          CniException.TRY_AGAIN_LATER, "no pool named and no default pod pool", "");
    }
    return pool;
  }

  /**
   * ADD: address, then interfaces and routes; what this call did is undone in reverse when a step
   * fails.
   */
  private Response add(CniRequest r, Phases phases) throws CniException {
    phases.mark("lock");
    Attachment a = r.attachment();
    String pool = pool(r);
    boolean fresh = ipam.find(a).isEmpty();
    Allocation alloc;
    try {
      alloc = ipam.allocate(pool, a);
    } catch (IpamException e) {
      int code =
          !e.tryAgainLater()
                  && (ipam.hasFree(pool)
                      || ipam.allocations().stream().anyMatch(x -> x.pool().equals(pool)))
              ? CniException.IPAM
              : CniException.TRY_AGAIN_LATER;
      throw new CniException(code, e.getMessage(), "");
    }
    phases.mark("ipam");
    PodNetwork.Undo undo = new PodNetwork.Undo();
    if (fresh) {
      undo.push(() -> ipam.release(a));
    }
    try {
      CniResult result = network.add(alloc, r.netns(), r.mtu(), undo, phases);
      Response response = new Response(0, result.toJson(r.cniVersion()));
      phases.mark("result");
      return response;
    } catch (CniException | RuntimeException e) {
      undo.run();
      throw e;
    }
  }

  /**
   * DEL: everything of the attachment goes; what is gone already (netns, link, allocation) is fine.
   */
  private Response del(CniRequest r) throws CniException {
    Attachment a = r.attachment();
    Optional<Allocation> alloc = ipam.find(a);
    network.delete(a, alloc.map(Allocation::addresses).orElse(List.of()));
    ipam.release(a);
    alloc.ifPresent(
        x ->
            LOG.info(
                () ->
                    "pod network deleted attachment="
                        + a
                        + " addresses="
                        + x.addresses().stream().map(Ip::format).toList()));
    return new Response(0, NOTHING);
  }

  /**
   * CHECK: the agent's allocation matches the previous result, and the kernel holds what ADD made.
   */
  private Response check(CniRequest r) throws CniException {
    Attachment a = r.attachment();
    if (r.prevResult() == null) {
      throw new CniException(CniException.INVALID_NETWORK_CONFIG, "CHECK needs prevResult", "");
    }
    Allocation alloc =
        ipam.find(a)
            .orElseThrow(
                () ->
                    new CniException(
                        CniException.IPAM,
                        "CHECK failed: the agent has no addresses for " + a,
                        ""));
    Set<String> want = new HashSet<>();
    for (InetAddress x : alloc.addresses()) {
      want.add(Ip.format(x) + "/" + (x.getAddress().length * 8));
    }
    if (!want.equals(new HashSet<>(CniResult.addresses(r.prevResult())))) {
      throw new CniException(
          CniException.IPAM,
          "CHECK failed: prevResult lists "
              + CniResult.addresses(r.prevResult())
              + " but the agent gave "
              + want,
          "");
    }
    network.check(alloc, r.netns());
    return new Response(0, NOTHING);
  }

  /** STATUS (CNI 1.1): ready when the pool has a free address. */
  private Response status(CniRequest r) throws CniException {
    String pool;
    try {
      pool = pool(r);
    } catch (CniException e) {
      throw new CniException(CniException.NOT_AVAILABLE, e.getMessage(), "");
    }
    if (!ipam.hasFree(pool)) {
      throw new CniException(
          CniException.NOT_AVAILABLE, "pool " + pool + " has no free address on this node", "");
    }
    return new Response(0, NOTHING);
  }

  /**
   * GC (CNI 1.1): every attachment the runtime does not list in cni.dev/valid-attachments is
   * deleted.
   */
  private Response gc(CniRequest r) throws CniException {
    if (r.validAttachments() == null) {
      throw new CniException(
          CniException.INVALID_NETWORK_CONFIG, "GC needs cni.dev/valid-attachments", "");
    }
    Set<Attachment> valid = new HashSet<>(r.validAttachments());
    for (Allocation alloc : ipam.allocations()) {
      Attachment a = alloc.attachment();
      if (!valid.contains(a)) {
        locks.with(
            a.containerId(),
            () -> {
              Optional<Allocation> still = ipam.find(a);
              if (still.isPresent()) {
                network.delete(a, still.get().addresses());
                ipam.release(a);
                LOG.info(() -> "garbage-collected attachment=" + a);
              }
              return null;
            });
      }
    }
    return new Response(0, NOTHING);
  }
}
