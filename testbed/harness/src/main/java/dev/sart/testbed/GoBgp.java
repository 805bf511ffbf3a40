package dev.sart.testbed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * GoBGP 3 ({@code gobgpd} in the foreground), queried with {@code gobgp -j}. The gRPC API listens
 * on a UNIX socket in the node's directory (no TCP port, pprof off). GoBGP cannot originate
 * prefixes from its configuration file, so the driver adds them to the global RIB through the CLI
 * once the daemon answers ({@code gobgp global rib add PREFIX origin igp}); without a next hop
 * GoBGP advertises itself as next hop to eBGP peers. Global import and export policies accept
 * everything.
 */
public final class GoBgp extends Router {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The API's {@code PeerState.SessionState} enum: UNKNOWN, IDLE, CONNECT, ACTIVE, OPENSENT, ...
   */
  private static final SessionState[] API_STATES = {
    SessionState.IDLE,
    SessionState.IDLE,
    SessionState.CONNECT,
    SessionState.ACTIVE,
    SessionState.OPEN_SENT,
    SessionState.OPEN_CONFIRM,
    SessionState.ESTABLISHED
  };

  // BGP path attribute type codes as gobgp -j prints them
  private static final int AS_PATH = 2;
  private static final int NEXT_HOP = 3;
  private static final int MED = 4;
  private static final int LOCAL_PREF = 5;
  private static final int COMMUNITIES = 8;
  private static final int MP_REACH = 14;
  private static final int LARGE_COMMUNITIES = 32;

  private final Set<IpPrefix> originated = new LinkedHashSet<>();
  private boolean originatedInstalled;
  private int gracefulRestartTime; // 0: no graceful restart
  private boolean gracefulNotification;

  public GoBgp(Node node, RouterConfig config) {
    super(node, config);
    originated.addAll(config.originate());
  }

  /**
   * Graceful restart (RFC 4724) on every neighbour and family, with this restart time; {@code
   * notification}: RFC 8538's N bit too ({@code notification-enabled}). GoBGP then helps a
   * restarting neighbour: it keeps the neighbour's routes, stale ({@link #pathStale}).
   */
  public GoBgp withGracefulRestart(int restartTimeSeconds, boolean notification) {
    gracefulRestartTime = restartTimeSeconds;
    gracefulNotification = notification;
    return this;
  }

  /** Whether GoBGP's path to {@code prefix} from a neighbour (IPv4 unicast) is stale. */
  public boolean pathStale(String prefix) {
    for (JsonNode path : parse(gobgp("global", "rib", "-a", "ipv4", prefix)).path(prefix)) {
      if (!path.path("neighbor-ip").asText("").isEmpty()) {
        return path.path("stale").asBoolean();
      }
    }
    return false;
  }

  @Override
  public String kind() {
    return "gobgp";
  }

  @Override
  protected List<String> requiredCommands() {
    return List.of("gobgpd", "gobgp");
  }

  /** The gRPC endpoint, as both gobgpd's --api-hosts and gobgp's --target take it. */
  private String target() {
    return "unix://" + node.dir().resolve("gobgp.sock");
  }

  @Override
  protected void launch() throws IOException {
    writeFile("gobgpd.toml", configText());
    spawn(
        "gobgpd",
        List.of(
            "gobgpd",
            "-f",
            node.dir().resolve("gobgpd.toml").toString(),
            "-t",
            "toml",
            "--api-hosts",
            target(),
            "--pprof-disable",
            "--log-plain"));
  }

  /**
   * Up when the API answers with the configured AS (the server has started from the file); the
   * prefixes to originate from the start are then added once.
   */
  @Override
  protected boolean ready() {
    JsonNode global = parse(gobgp("global"));
    if (global.path("asn").asLong() != config.asn()) {
      return false;
    }
    if (!originatedInstalled) {
      originated.forEach(p -> ribCommand("add", p));
      originatedInstalled = true;
    }
    return true;
  }

  /** Runs one gobgp command with JSON output and returns what it printed. */
  public String gobgp(String... args) {
    List<String> argv = new ArrayList<>(List.of("gobgp", "--target", target(), "-j"));
    argv.addAll(List.of(args));
    return cli(argv.toArray(String[]::new));
  }

  String configText() {
    StringBuilder c = new StringBuilder();
    c.append("[global.config]\n");
    c.append("  as = ").append(config.asn()).append('\n');
    c.append("  router-id = ").append(quote(config.routerIdText())).append('\n');
    c.append("[global.apply-policy.config]\n");
    c.append("  default-import-policy = \"accept-route\"\n");
    c.append("  default-export-policy = \"accept-route\"\n");
    for (Neighbor n : config.neighbors()) {
      c.append("\n[[neighbors]]\n");
      c.append("  [neighbors.config]\n");
      c.append("    neighbor-address = ").append(quote(n.addressText())).append('\n');
      c.append("    peer-as = ").append(n.asn()).append('\n');
      if (!n.as4()) {
        // gobgpd 3.10 always sends the capability: its configuration has no switch for it
        throw new IllegalArgumentException(
            "GoBGP cannot leave out the 4-octet AS capability: " + n.addressText());
      }
      if (n.password() != null) {
        c.append("    auth-password = ").append(quote(n.password())).append('\n');
      }
      c.append("  [neighbors.timers.config]\n");
      c.append("    connect-retry = 1\n");
      if (n.passive()) {
        c.append("  [neighbors.transport.config]\n");
        c.append("    passive-mode = true\n");
      }
      if (gracefulRestartTime > 0) {
        c.append("  [neighbors.graceful-restart.config]\n");
        c.append("    enabled = true\n");
        c.append("    restart-time = ").append(gracefulRestartTime).append('\n');
        c.append("    notification-enabled = ").append(gracefulNotification).append('\n');
      }
      if (n.multihopTtl() > 0) {
        c.append("  [neighbors.ebgp-multihop.config]\n");
        c.append("    enabled = true\n");
        c.append("    multihop-ttl = ").append(n.multihopTtl()).append('\n');
      }
      if (n.ttlSecurityHops() > 0) {
        // GoBGP's ttl-security excludes ebgp-multihop; TTL 255 goes out anyway
        c.append("  [neighbors.ttl-security.config]\n");
        c.append("    enabled = true\n");
        c.append("    ttl-min = ").append(256 - n.ttlSecurityHops()).append('\n');
      }
      for (Family f : n.families()) {
        c.append("  [[neighbors.afi-safis]]\n");
        c.append("    [neighbors.afi-safis.config]\n");
        c.append("      afi-safi-name = ")
            .append(quote(f.isIpv4() ? "ipv4-unicast" : "ipv6-unicast"))
            .append('\n');
        if (gracefulRestartTime > 0) {
          c.append("    [neighbors.afi-safis.mp-graceful-restart.config]\n");
          c.append("      enabled = true\n");
        }
        if (n.addPathReceive() || n.addPathSend()) {
          // RFC 7911, per family
          c.append("    [neighbors.afi-safis.add-paths.config]\n");
          c.append("      receive = ").append(n.addPathReceive()).append('\n');
          if (n.addPathSend()) {
            c.append("      send-max = 255\n");
          }
        }
      }
    }
    return c.toString();
  }

  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  @Override
  public SessionState sessionState(InetAddress neighbor) {
    Neighbor n = config.neighbor(neighbor);
    return parseSessionState(gobgp("neighbor", n.addressText()));
  }

  /**
   * The state in {@code gobgp -j neighbor ADDR}: {@code state.session_state}, the API enum's
   * number.
   */
  static SessionState parseSessionState(String json) {
    JsonNode s = parse(json).path("state").path("session_state");
    if (s.isTextual()) {
      return SessionState.parse(s.asText());
    }
    int i = s.asInt(0);
    if (i < 0 || i >= API_STATES.length) {
      throw new IllegalArgumentException("unknown GoBGP session state " + i);
    }
    return API_STATES[i];
  }

  @Override
  public List<Route> routes(Family family) {
    return parseRoutes(gobgp("global", "rib", "-a", family.isIpv4() ? "ipv4" : "ipv6"));
  }

  /**
   * Parses {@code gobgp -j global rib -a FAMILY}: an object from prefix to its paths. Paths without
   * a {@code neighbor-ip} are the ones this daemon originates and are left out.
   */
  static List<Route> parseRoutes(String json) {
    List<Route> routes = new ArrayList<>();
    JsonNode rib = parse(json);
    for (var entry : rib.properties()) {
      for (JsonNode path : entry.getValue()) {
        String from = path.path("neighbor-ip").asText("");
        if (from.isEmpty()) {
          continue;
        }
        routes.add(
            route(
                IpPrefix.parse(path.path("nlri").path("prefix").asText(entry.getKey())),
                path,
                Ip.parse(from)));
      }
    }
    return routes;
  }

  private static Route route(IpPrefix prefix, JsonNode path, InetAddress from) {
    List<InetAddress> nextHops = new ArrayList<>();
    List<Long> asPath = new ArrayList<>();
    List<String> communities = new ArrayList<>();
    List<String> large = new ArrayList<>();
    OptionalLong med = OptionalLong.empty();
    OptionalLong localPref = OptionalLong.empty();
    for (JsonNode attr : path.path("attrs")) {
      switch (attr.path("type").asInt()) {
        case AS_PATH -> {
          for (JsonNode segment : attr.path("as_paths")) {
            segment.path("asns").forEach(a -> asPath.add(a.asLong()));
          }
        }
        case NEXT_HOP, MP_REACH -> nextHops.add(Ip.parse(attr.path("nexthop").asText()));
        case MED -> med = OptionalLong.of(attr.path("metric").asLong());
        case LOCAL_PREF -> localPref = OptionalLong.of(attr.path("value").asLong());
        case COMMUNITIES ->
            attr.path("communities")
                .forEach(
                    v -> {
                      long c = v.asLong();
                      communities.add((c >>> 16) + ":" + (c & 0xffff));
                    });
        case LARGE_COMMUNITIES ->
            attr.path("value")
                .forEach(
                    v ->
                        large.add(
                            v.path("ASN").asLong()
                                + ":"
                                + v.path("LocalData1").asLong()
                                + ":"
                                + v.path("LocalData2").asLong()));
        default -> {}
      }
    }
    communities.addAll(large);
    return new Route(
        prefix, nextHops, asPath, communities, med, localPref, from, path.path("best").asBoolean());
  }

  private static JsonNode parse(String json) {
    try {
      JsonNode n = JSON.readTree(json);
      return n == null ? JSON.createObjectNode() : n;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("gobgp printed no JSON: " + json, e);
    }
  }

  @Override
  public void announce(IpPrefix prefix) {
    if (originated.add(prefix)) {
      ribCommand("add", prefix);
    }
  }

  @Override
  public void withdraw(IpPrefix prefix) {
    if (originated.remove(prefix)) {
      ribCommand("del", prefix);
    }
  }

  /**
   * {@code gobgp global rib add|del PREFIX [origin igp] -a FAMILY}; no next hop: eBGP peers get
   * ours.
   */
  private void ribCommand(String verb, IpPrefix prefix) {
    List<String> argv =
        new ArrayList<>(
            List.of("gobgp", "--target", target(), "global", "rib", verb, prefix.toString()));
    if (verb.equals("add")) {
      argv.addAll(List.of("origin", "igp"));
    }
    argv.addAll(List.of("-a", prefix.isIpv4() ? "ipv4" : "ipv6"));
    cli(argv.toArray(String[]::new));
  }
}
