package dev.sart.testbed;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * FRR 8.4: {@code /usr/lib/frr/zebra} and {@code /usr/lib/frr/bgpd} in the foreground (no {@code
 * -d}), queried with {@code vtysh --vty_socket}. The vty sockets, pid files and zserv socket live
 * in {@code <node dir>/frr}, owned by frr:frr because the daemons drop to that user. Prefixes are
 * originated with {@code network} statements, added and removed through vtysh at run time.
 *
 * <p>By default bgpd talks to zebra (which installs the learned routes into the namespace's kernel
 * table). {@link #withoutZebra} runs bgpd alone ({@code -Z -n}); then bgpd knows no interfaces, so
 * it drops IPv6 routes whose next hop includes a link-local address (as BIRD sends on a shared
 * link).
 */
public final class Frr extends Router {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The names FRR prints in JSON for the well-known communities (bgpd/bgp_community.c). */
  private static final Map<String, String> WELL_KNOWN =
      Map.ofEntries(
          Map.entry("internet", "0:0"),
          Map.entry("gracefulShutdown", "65535:0"),
          Map.entry("acceptown", "65535:1"),
          Map.entry("routeFilterTranslatedV4", "65535:2"),
          Map.entry("routeFilterV4", "65535:3"),
          Map.entry("routeFilterTranslatedV6", "65535:4"),
          Map.entry("routeFilterV6", "65535:5"),
          Map.entry("llgrStale", "65535:6"),
          Map.entry("noLlgr", "65535:7"),
          Map.entry("acceptownnexthop", "65535:8"),
          Map.entry("blackhole", "65535:666"),
          Map.entry("noExport", "65535:65281"),
          Map.entry("noAdvertise", "65535:65282"),
          Map.entry("localAs", "65535:65283"),
          Map.entry("noPeer", "65535:65284"));

  private final boolean zebra;
  private int gracefulRestartTime = -1;
  private int[] bfd; // transmit interval ms, receive interval ms, detect multiplier; null: none
  private ManagedProcess bfdd;
  private final Set<IpPrefix> originated = new LinkedHashSet<>();
  private ManagedProcess bgpd;

  /** FRR with zebra (the default). */
  public Frr(Node node, RouterConfig config) {
    this(node, config, true);
  }

  /**
   * @param zebra whether to run zebra; without it bgpd runs with {@code -Z -n}
   */
  public Frr(Node node, RouterConfig config, boolean zebra) {
    super(node, config);
    this.zebra = zebra;
    originated.addAll(config.originate());
  }

  /**
   * Graceful restart (RFC 4724) as restarting speaker and helper: {@code bgp graceful-restart},
   * with the forwarding state of every family kept across a restart ({@code preserve-fw-state}, the
   * F bit) and this restart time in seconds; before {@link #start()}.
   */
  public Frr withGracefulRestart(int restartTimeSeconds) {
    gracefulRestartTime = restartTimeSeconds;
    return this;
  }

  /**
   * Single-hop BFD (FRR's {@code bfdd}, which bgpd reaches through zebra) on every neighbour, with
   * these timers ({@code neighbor X bfd profile}); bfdd logs its state changes with microsecond
   * timestamps ({@code debug bfd peer}), see {@link #bfdLog()}; before {@link #start()}.
   */
  public Frr withBfd(int transmitMillis, int receiveMillis, int multiplier) {
    if (!zebra) {
      throw new IllegalStateException("bgpd reaches bfdd through zebra");
    }
    bfd = new int[] {transmitMillis, receiveMillis, multiplier};
    return this;
  }

  /** bgpd alone, {@code -Z -n}: no zebra, nothing installed in the kernel. */
  public static Frr withoutZebra(Node node, RouterConfig config) {
    return new Frr(node, config, false);
  }

  @Override
  public String kind() {
    return "frr";
  }

  @Override
  protected List<String> requiredCommands() {
    if (bfd != null) {
      return List.of("/usr/lib/frr/zebra", "/usr/lib/frr/bfdd", "/usr/lib/frr/bgpd", "vtysh");
    }
    return zebra
        ? List.of("/usr/lib/frr/zebra", "/usr/lib/frr/bgpd", "vtysh")
        : List.of("/usr/lib/frr/bgpd", "vtysh");
  }

  /** Vty sockets, pid files and the zserv socket: a directory the daemons (user frr) can write. */
  private Path runDir() {
    return node.dir().resolve("frr");
  }

  @Override
  protected void launch() throws IOException {
    Path run = Files.createDirectories(runDir());
    UserPrincipalLookupService users = run.getFileSystem().getUserPrincipalLookupService();
    PosixFileAttributeView view = Files.getFileAttributeView(run, PosixFileAttributeView.class);
    view.setOwner(users.lookupPrincipalByName("frr"));
    view.setGroup(users.lookupPrincipalByGroupName("frr"));
    String zserv = run.resolve("zserv.api").toString();
    if (zebra) {
      writeFile("zebra.conf", "hostname " + node.name() + "\nlog stdout informational\n");
      ManagedProcess z = spawn("zebra", daemon("zebra", List.of("-z", zserv)));
      // bgpd retries zebra by itself, but starting it once zebra listens avoids a retry delay
      await("%s: zebra listening".formatted(this))
          .atMost(START_TIMEOUT)
          .pollInterval(Duration.ofMillis(20))
          .failFast("%s: zebra exited:%n%s".formatted(this, logTail()), () -> !z.isAlive())
          .until(() -> Files.exists(run.resolve("zserv.api")));
    }
    if (bfd != null) {
      writeFile("bfdd.conf", bfddConfigText());
      bfdd =
          spawn(
              "bfdd",
              daemon(
                  "bfdd", List.of("-z", zserv, "--bfdctl", run.resolve("bfdd.sock").toString())));
    }
    writeFile("bgpd.conf", configText());
    bgpd = spawn("bgpd", daemon("bgpd", zebra ? List.of("-z", zserv) : List.of("-Z", "-n")));
  }

  private List<String> daemon(String name, List<String> extra) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "/usr/lib/frr/" + name,
                "-f",
                node.dir().resolve(name + ".conf").toString(),
                "-i",
                runDir().resolve(name + ".pid").toString(),
                "--vty_socket",
                runDir().toString(),
                "-P",
                "0",
                "-u",
                "frr",
                "-g",
                "frr"));
    argv.addAll(extra);
    return argv;
  }

  @Override
  protected boolean ready() {
    // the vty answers before the configuration is read: wait for the BGP instance
    JsonNode table = json(vtysh("show bgp ipv4 unicast json"));
    if (table.path("localAS").asLong() != config.asn()) {
      return false;
    }
    // bgpd skips a configuration line it does not take and runs on ("No such command on config
    // line 3: ..."); a driver bug: stop it so that start() fails at once, its log telling why
    if (bgpd.tail(200).contains("on config line")) {
      bgpd.stop();
      throw new IllegalStateException(this + " rejected configuration lines:\n" + bgpd.tail(20));
    }
    return true;
  }

  /**
   * Runs vtysh with one {@code -c} per command (a configuration change is several: "configure",
   * "router bgp N", ...) and returns its output; throws when vtysh fails or prints a "%" error.
   */
  public String vtysh(String... commands) {
    List<String> argv = new ArrayList<>(List.of("vtysh", "--vty_socket", runDir().toString()));
    for (String c : commands) {
      argv.add("-c");
      argv.add(c);
    }
    Shell.Result r = node.tryExec(argv.toArray(String[]::new));
    if (!r.ok() || r.stdout().lines().anyMatch(l -> l.startsWith("%"))) {
      throw new Shell.CommandFailedException(r);
    }
    return r.stdout();
  }

  String bfddConfigText() {
    return ("hostname %s\nlog stdout debugging\nlog timestamp precision 6\ndebug bfd peer\n!\n"
            + "bfd\n profile sart\n  transmit-interval %d\n  receive-interval %d\n"
            + "  detect-multiplier %d\n !\n!\n")
        .formatted(node.name(), bfd[0], bfd[1], bfd[2]);
  }

  /** {@code show bfd peers json}: one object per BFD session (FRR's own view). */
  public JsonNode bfdPeers() {
    return json(vtysh("show bfd peers json"));
  }

  /**
   * The state FRR's bfdd shows for its session with this peer ("up", "down", "init", "shutdown"),
   * or "none".
   */
  public String bfdState(InetAddress peer) {
    for (JsonNode p : bfdPeers()) {
      if (address(p.path("peer").asText()).equals(peer)) {
        return p.path("status").asText();
      }
    }
    return "none";
  }

  /** The last lines bfdd printed (its state changes, with microsecond timestamps). */
  public String bfdLog() {
    return bfdd == null ? "" : bfdd.tail(2000);
  }

  String configText() {
    StringBuilder c = new StringBuilder();
    c.append("frr defaults traditional\n");
    c.append("hostname ").append(node.name()).append('\n');
    c.append("log stdout informational\n!\n");
    c.append("router bgp ").append(config.asn()).append('\n');
    c.append(" bgp router-id ").append(config.routerIdText()).append('\n');
    c.append(
        " no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n");
    // updates to a newly established peer wait for this (1 s by default); 0 makes tests quicker
    c.append(" coalesce-time 0\n");
    if (gracefulRestartTime >= 0) {
      c.append(" bgp graceful-restart\n");
      c.append(" bgp graceful-restart preserve-fw-state\n");
      c.append(" bgp graceful-restart restart-time ").append(gracefulRestartTime).append('\n');
    }
    for (Neighbor n : config.neighbors()) {
      String a = " neighbor " + n.addressText();
      c.append(a).append(" remote-as ").append(n.asn()).append('\n');
      c.append(a).append(" timers connect 1\n");
      c.append(a).append(" advertisement-interval 0\n");
      if (n.passive()) {
        c.append(a).append(" passive\n");
      }
      if (!n.as4()) {
        // FRR 8.4 always announces the 4-octet AS capability unless it announces none at all; then
        // there is no multiprotocol capability either and only IPv4 unicast is exchanged (RFC 4760
        // §1)
        if (!n.families().equals(Set.of(Family.IPV4_UNICAST))) {
          throw new IllegalArgumentException(
              "FRR without the 4-octet AS capability sends no capabilities "
                  + "and can only exchange IPv4 unicast: "
                  + n.addressText()
                  + " "
                  + n.families());
        }
        c.append(a).append(" dont-capability-negotiate\n");
      }
      if (n.password() != null) {
        c.append(a).append(" password ").append(n.password()).append('\n');
      }
      if (n.multihopTtl() > 0 && n.asn() != config.asn()) {
        // iBGP sessions are multihop already (TTL 255); FRR only takes ebgp-multihop for eBGP
        c.append(a).append(" ebgp-multihop ").append(n.multihopTtl()).append('\n');
      }
      if (n.ttlSecurityHops() > 0) {
        c.append(a).append(" ttl-security hops ").append(n.ttlSecurityHops()).append('\n');
      }
      if (bfd != null) {
        c.append(a).append(" bfd\n");
        c.append(a).append(" bfd profile sart\n");
      }
      if (!n.isIpv4() && n.families().contains(Family.IPV4_UNICAST)) {
        c.append(a).append(" capability extended-nexthop\n");
      }
    }
    for (Family f : Family.values()) {
      c.append(" !\n address-family ").append(afi(f)).append(" unicast\n");
      originated.stream()
          .filter(p -> Family.of(p) == f)
          .forEach(p -> c.append("  network ").append(p).append('\n'));
      config.neighbors().stream()
          .filter(n -> n.families().contains(f))
          .forEach(n -> c.append("  neighbor ").append(n.addressText()).append(" activate\n"));
      // RFC 7911: FRR 8.4 always offers to receive several paths; sending them is asked for
      config.neighbors().stream()
          .filter(n -> n.families().contains(f) && n.addPathSend())
          .forEach(
              n ->
                  c.append("  neighbor ")
                      .append(n.addressText())
                      .append(" addpath-tx-all-paths\n"));
      c.append(" exit-address-family\n");
    }
    c.append("!\n");
    return c.toString();
  }

  private static String afi(Family f) {
    return f.isIpv4() ? "ipv4" : "ipv6";
  }

  /**
   * {@code show bgp neighbors X json}: FRR's view of its neighbour (its {@code
   * gracefulRestartInfo}, {@code lastNotificationReason}, ...), or a missing node.
   */
  public JsonNode neighbor(InetAddress neighbor) {
    return json(vtysh("show bgp neighbors " + Ip.format(neighbor) + " json"))
        .path(Ip.format(neighbor));
  }

  /**
   * Whether FRR's first path to {@code prefix} (IPv4 unicast) is stale: kept while the neighbour it
   * came from restarts (RFC 4724 §4.2), as {@code show bgp ipv4 unicast PREFIX} marks it.
   */
  public boolean pathStale(String prefix) {
    return json(vtysh("show bgp ipv4 unicast " + prefix + " json"))
        .path("paths")
        .path(0)
        .path("stale")
        .asBoolean();
  }

  @Override
  public SessionState sessionState(InetAddress neighbor) {
    config.neighbor(neighbor);
    JsonNode out = json(vtysh("show bgp neighbors " + Ip.format(neighbor) + " json"));
    for (JsonNode peer : out) {
      if (peer.has("bgpState")) {
        return SessionState.parse(peer.get("bgpState").asText());
      }
    }
    return SessionState.IDLE;
  }

  @Override
  public List<Route> routes(Family family) {
    // "json detail" (in this order: "detail json" is not a command in 8.4) adds communities,
    // large communities and LOCAL_PREF, which the plain json output lacks
    return parseRoutes(vtysh("show bgp " + afi(family) + " unicast json detail"));
  }

  /**
   * Parses {@code show bgp <afi> unicast json detail}: the learned paths, not the ones bgpd
   * originates.
   */
  static List<Route> parseRoutes(String out) {
    List<Route> routes = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : json(out).path("routes").properties()) {
      IpPrefix prefix = IpPrefix.parse(e.getKey());
      // the first element describes the prefix ("advertisedTo"), the others are its paths
      for (JsonNode path : e.getValue()) {
        if (!path.has("nexthops")
            || path.path("local").asBoolean()
            || path.path("sourced").asBoolean()) {
          continue;
        }
        String peerId = path.path("peer").path("peerId").asText("");
        InetAddress from = peerId.isEmpty() || peerId.startsWith("(") ? null : address(peerId);
        if (from != null && from.isAnyLocalAddress()) {
          continue;
        }
        routes.add(
            new Route(
                prefix,
                nextHops(path.path("nexthops")),
                asPath(path.path("aspath")),
                communities(path),
                optionalLong(path, "metric"),
                optionalLong(path, "locPrf"),
                from,
                path.path("bestpath").path("overall").asBoolean()));
      }
    }
    return routes;
  }

  /**
   * The global next hops; a link-local one only when there is nothing else (FRR lists both for
   * IPv6).
   */
  private static List<InetAddress> nextHops(JsonNode nexthops) {
    List<InetAddress> global = new ArrayList<>();
    List<InetAddress> linkLocal = new ArrayList<>();
    for (JsonNode nh : nexthops) {
      InetAddress a = address(nh.path("ip").asText());
      (a.isLinkLocalAddress() ? linkLocal : global).add(a);
    }
    return global.isEmpty() ? linkLocal : global;
  }

  private static List<Long> asPath(JsonNode aspath) {
    List<Long> asns = new ArrayList<>();
    for (JsonNode segment : aspath.path("segments")) {
      for (JsonNode asn : segment.path("list")) {
        asns.add(asn.asLong());
      }
    }
    return asns;
  }

  private static List<String> communities(JsonNode path) {
    List<String> out = new ArrayList<>();
    for (JsonNode c : path.path("community").path("list")) {
      out.add(WELL_KNOWN.getOrDefault(c.asText(), c.asText()));
    }
    for (JsonNode c : path.path("largeCommunity").path("list")) {
      out.add(c.asText());
    }
    return out;
  }

  private static OptionalLong optionalLong(JsonNode node, String field) {
    return node.has(field) ? OptionalLong.of(node.get(field).asLong()) : OptionalLong.empty();
  }

  /** An address as FRR prints it, without a zone ("fe80::1%eth0"). */
  private static InetAddress address(String text) {
    int zone = text.indexOf('%');
    return Ip.parse(zone < 0 ? text : text.substring(0, zone));
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("vtysh printed no JSON: " + text, e);
    }
  }

  @Override
  public void announce(IpPrefix prefix) {
    if (originated.add(prefix)) {
      configureNetwork(prefix, "network ");
    }
  }

  @Override
  public void withdraw(IpPrefix prefix) {
    if (originated.remove(prefix)) {
      configureNetwork(prefix, "no network ");
    }
  }

  private void configureNetwork(IpPrefix prefix, String command) {
    vtysh(
        "configure terminal",
        "router bgp " + config.asn(),
        "address-family " + afi(Family.of(prefix)) + " unicast",
        command + prefix);
  }
}
