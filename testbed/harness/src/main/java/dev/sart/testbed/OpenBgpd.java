package dev.sart.testbed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * OpenBGPD portable ({@code bgpd -d -f CONF}: {@code -d} keeps it in the foreground logging to
 * stderr; it forks its privilege-separated children, which stay in the namespace and exit with the
 * parent), queried with {@code bgpctl -s SOCK -j}. Each instance has its own control socket in the
 * node's directory; {@code fib-update no} keeps the kernel untouched. Prefixes are originated with
 * {@code network} statements and, at run time, {@code bgpctl network add|delete}.
 *
 * <p>Facts about OpenBGPD 7.7 the driver relies on:
 *
 * <ul>
 *   <li>the session and route engines chroot to {@code /run/openbgpd} (it must exist; all instances
 *       share it, nothing is written there when a {@code socket} is configured);
 *   <li>filters deny everything by default: {@code allow from any} / {@code allow to any};
 *   <li>{@code connect-retry} is a global setting only;
 *   <li>{@code show rib detail} prints {@code metric} (MED) and {@code localpref} for every path,
 *       whether or not the attribute was received (0 and 100 by default), so the parsed routes
 *       always carry both;
 *   <li>the well-known communities are printed by name ({@code NO_EXPORT}, {@code BLACKHOLE}, ...);
 *       they are translated back to "65535:N" here;
 *   <li>the RIB also lists the locally originated prefixes, with neighbour {@code "???"}
 *       (description "LOCAL"); they are not routes learned over BGP and are skipped.
 * </ul>
 */
public final class OpenBgpd extends Router {
  /** Where bgpd's engines chroot to (the Debian package does not create it outside systemd). */
  static final Path CHROOT = Path.of("/run/openbgpd");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The names bgpctl prints for well-known communities (RFC 1997, 3765, 7999, 8326). */
  private static final Map<String, String> WELL_KNOWN =
      Map.of(
          "GRACEFUL_SHUTDOWN", "65535:0",
          "BLACKHOLE", "65535:666",
          "NO_EXPORT", "65535:65281",
          "NO_ADVERTISE", "65535:65282",
          "NO_EXPORT_SUBCONFED", "65535:65283",
          "NO_PEER", "65535:65284");

  private final Set<IpPrefix> originated = new LinkedHashSet<>();

  public OpenBgpd(Node node, RouterConfig config) {
    super(node, config);
    originated.addAll(config.originate());
  }

  @Override
  public String kind() {
    return "openbgpd";
  }

  @Override
  protected List<String> requiredCommands() {
    return List.of("bgpd", "bgpctl");
  }

  private Path socket() {
    return node.dir().resolve("bgpd.sock");
  }

  @Override
  protected void launch() throws IOException {
    Files.createDirectories(CHROOT);
    Path conf = writeFile("bgpd.conf", configText(socket()));
    spawn("bgpd", List.of("bgpd", "-d", "-f", conf.toString()));
  }

  /**
   * Ready once the session engine knows every neighbour and the route engine has loaded every
   * {@code network} statement (so a {@code network add} right after start cannot race the
   * configuration).
   */
  @Override
  protected boolean ready() {
    if (neighbors(bgpctl("-j", "show", "neighbor")).size() != config.neighbors().size()) {
      return false;
    }
    String networks = bgpctl("network", "show");
    return config.originate().stream().allMatch(p -> networks.contains(" " + p + " "));
  }

  /** Runs one bgpctl command against this instance's socket and returns its output. */
  public String bgpctl(String... args) {
    List<String> argv = new ArrayList<>(List.of("bgpctl", "-s", socket().toString()));
    argv.addAll(List.of(args));
    return cli(argv.toArray(String[]::new));
  }

  String configText(Path socket) {
    StringBuilder c = new StringBuilder();
    c.append("AS ").append(config.asn()).append('\n');
    c.append("router-id ").append(config.routerIdText()).append('\n');
    c.append("socket \"").append(socket).append("\"\n");
    c.append("fib-update no\n");
    c.append("connect-retry 1\n");
    for (IpPrefix p : originated) {
      c.append("network ").append(p).append('\n');
    }
    for (Neighbor n : config.neighbors()) {
      c.append("neighbor ").append(n.addressText()).append(" {\n");
      c.append("  remote-as ").append(n.asn()).append('\n');
      if (n.passive()) {
        c.append("  passive\n");
      }
      if (!n.as4()) {
        c.append("  announce as-4byte no\n");
      }
      if (n.password() != null) {
        if (n.password().contains("\"") || n.password().contains("\\")) {
          throw new IllegalArgumentException("password with a quote or backslash: " + n.password());
        }
        c.append("  tcp md5sig password \"").append(n.password()).append("\"\n");
      }
      if (n.multihopTtl() > 0) {
        c.append("  multihop ").append(n.multihopTtl()).append('\n');
      }
      if (n.ttlSecurityHops() > 0) {
        // bgpd.conf(5): the lowest TTL accepted is 256 minus the multihop distance (255 without)
        c.append("  ttl-security yes\n");
        if (n.ttlSecurityHops() > 1) {
          c.append("  multihop ").append(n.ttlSecurityHops()).append('\n');
        }
      }
      // Without these, a session announces only the unicast family of its transport.
      c.append("  announce IPv4 ")
          .append(n.families().contains(Family.IPV4_UNICAST) ? "unicast" : "none")
          .append('\n');
      c.append("  announce IPv6 ")
          .append(n.families().contains(Family.IPV6_UNICAST) ? "unicast" : "none")
          .append('\n');
      c.append("}\n");
    }
    // OpenBGPD's filters deny by default.
    c.append("allow from any\n");
    c.append("allow to any\n");
    return c.toString();
  }

  @Override
  public SessionState sessionState(InetAddress neighbor) {
    config.neighbor(neighbor);
    return parseSessionState(bgpctl("-j", "show", "neighbor", Ip.format(neighbor)), neighbor);
  }

  /** The state of {@code neighbor} in {@code show neighbor} JSON; IDLE when it is not listed. */
  static SessionState parseSessionState(String json, InetAddress neighbor) {
    for (JsonNode n : neighbors(json)) {
      String addr = n.path("remote_addr").asText();
      if (isAddress(addr) && Ip.parse(addr).equals(neighbor)) {
        String state = n.path("state").asText();
        // "None" is the state of a peer the session engine has not started yet.
        return state.equals("None") ? SessionState.IDLE : SessionState.parse(state);
      }
    }
    return SessionState.IDLE;
  }

  private static List<JsonNode> neighbors(String json) {
    List<JsonNode> out = new ArrayList<>();
    tree(json).path("neighbors").forEach(out::add);
    return out;
  }

  @Override
  public List<Route> routes(Family family) {
    return parseRoutes(bgpctl("-j", "show", "rib", "detail", family.isIpv4() ? "inet" : "inet6"));
  }

  /** Parses {@code bgpctl -j show rib detail}: every path learned from a neighbour, best or not. */
  static List<Route> parseRoutes(String json) {
    List<Route> routes = new ArrayList<>();
    for (JsonNode r : tree(json).path("rib")) {
      String from = r.path("neighbor").path("remote_addr").asText();
      if (!isAddress(from)) {
        continue; // our own network statements: neighbour "???", description "LOCAL"
      }
      List<InetAddress> nextHops = new ArrayList<>();
      String nh = r.path("exit_nexthop").asText();
      if (isAddress(nh)) {
        nextHops.add(Ip.parse(nh));
      }
      List<Long> asPath = new ArrayList<>();
      // AS_SETs print as "{ a b }", confederation segments as "( a )" / "[ a ]": flattened.
      for (String asn :
          r.path("aspath").asText().replaceAll("[{}()\\[\\],]", " ").trim().split("\\s+")) {
        if (!asn.isEmpty()) {
          asPath.add(Long.parseLong(asn));
        }
      }
      List<String> communities = new ArrayList<>();
      for (JsonNode c : r.path("communities")) {
        communities.add(WELL_KNOWN.getOrDefault(c.asText(), c.asText()));
      }
      for (JsonNode c : r.path("large_communities")) {
        communities.add(c.asText());
      }
      routes.add(
          new Route(
              IpPrefix.parse(r.path("prefix").asText()),
              nextHops,
              asPath,
              communities,
              optionalLong(r, "metric"),
              optionalLong(r, "localpref"),
              Ip.parse(from),
              r.path("best").asBoolean(false)));
    }
    return routes;
  }

  private static OptionalLong optionalLong(JsonNode r, String field) {
    JsonNode v = r.get(field);
    return v != null && v.canConvertToLong() ? OptionalLong.of(v.asLong()) : OptionalLong.empty();
  }

  private static boolean isAddress(String s) {
    try {
      Ip.parse(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("bgpctl printed invalid JSON: " + json, e);
    }
  }

  @Override
  public void announce(IpPrefix prefix) {
    if (originated.add(prefix)) {
      bgpctl("network", "add", prefix.toString());
    }
  }

  @Override
  public void withdraw(IpPrefix prefix) {
    if (originated.remove(prefix)) {
      bgpctl("network", "delete", prefix.toString());
    }
  }
}
