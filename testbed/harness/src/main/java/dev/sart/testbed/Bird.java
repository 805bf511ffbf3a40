package dev.sart.testbed;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BIRD 2 ({@code bird -f}), queried with {@code birdc}. One {@code protocol bgp} per neighbour
 * named {@code n<index>}, one table per family, prefixes originated from a static protocol as
 * blackholes (re-configured with {@code birdc configure} when announcing at run time). No kernel
 * protocol: the routes stay in BIRD.
 */
public final class Bird extends Router {
  private static final Pattern BGP_STATE = Pattern.compile("BGP state:\\s+(\\S+)");
  private static final Pattern ROUTE_HEAD =
      Pattern.compile(
          "^(\\S+)?\\s+(unicast|blackhole|unreachable|prohibited)\\s+\\[(\\S+)(?: [^\\]]*)?\\]\\s+(\\*)?.*$");
  private static final Pattern VIA = Pattern.compile("^\\s+via (\\S+)");
  private static final Pattern ATTR = Pattern.compile("^\\s+(BGP\\.[a-z_]+|Type): (.*)$");
  private static final Pattern PAIR = Pattern.compile("\\((\\d+),\\s*(\\d+)(?:,\\s*(\\d+))?\\)");

  private final Set<IpPrefix> originated = new LinkedHashSet<>();

  public Bird(Node node, RouterConfig config) {
    super(node, config);
    originated.addAll(config.originate());
  }

  @Override
  public String kind() {
    return "bird";
  }

  @Override
  protected List<String> requiredCommands() {
    return List.of("bird", "birdc");
  }

  private String socket() {
    return node.dir().resolve("bird.ctl").toString();
  }

  @Override
  protected void launch() throws IOException {
    writeFile("bird.conf", configText());
    spawn(
        "bird",
        List.of(
            "bird",
            "-f",
            "-c",
            node.dir().resolve("bird.conf").toString(),
            "-s",
            socket(),
            "-P",
            node.dir().resolve("bird.pid").toString()));
  }

  @Override
  protected boolean ready() {
    return birdc("show status").contains("Daemon is up and running");
  }

  /** Runs one birdc command and returns its output. */
  public String birdc(String command) {
    return cli(List.of("birdc", "-s", socket(), command).toArray(String[]::new));
  }

  String configText() {
    StringBuilder c = new StringBuilder();
    c.append("router id ").append(config.routerIdText()).append(";\n");
    c.append("log stderr all;\n");
    c.append("protocol device { scan time 10; }\n");
    c.append("protocol static static4 {\n  ipv4;\n");
    originated.stream()
        .filter(IpPrefix::isIpv4)
        .forEach(p -> c.append("  route ").append(p).append(" blackhole;\n"));
    c.append("}\n");
    c.append("protocol static static6 {\n  ipv6;\n");
    originated.stream()
        .filter(p -> !p.isIpv4())
        .forEach(p -> c.append("  route ").append(p).append(" blackhole;\n"));
    c.append("}\n");
    List<Neighbor> ns = config.neighbors();
    for (int i = 0; i < ns.size(); i++) {
      Neighbor n = ns.get(i);
      c.append("protocol bgp n").append(i).append(" {\n");
      c.append("  local as ").append(config.asn()).append(";\n");
      if (!n.as4() && n.asn() > 0xffff) {
        // with "enable as4 off" BIRD refuses a 4-octet neighbour AS ("AS4 not available"), yet
        // checks
        // the AS in the neighbour's 4-octet AS capability (so AS_TRANS, 23456, fails): any external
        // AS
        c.append("  neighbor ").append(n.addressText()).append(" external;\n");
      } else {
        c.append("  neighbor ")
            .append(n.addressText())
            .append(" as ")
            .append(n.asn())
            .append(";\n");
      }
      c.append("  connect delay time 1;\n  connect retry time 1;\n  error wait time 1, 5;\n");
      if (n.passive()) {
        c.append("  passive on;\n");
      }
      if (!n.as4()) {
        c.append("  enable as4 off;\n");
      }
      if (n.password() != null) {
        c.append("  password \"").append(n.password()).append("\";\n");
      }
      if (n.multihopTtl() > 0) {
        c.append("  multihop ").append(n.multihopTtl()).append(";\n");
      }
      if (n.ttlSecurityHops() > 0) {
        // BIRD derives the lowest TTL it accepts (256 - hops) from the multihop setting
        c.append("  ttl security on;\n");
        c.append(
            n.ttlSecurityHops() > 1 ? "  multihop " + n.ttlSecurityHops() + ";\n" : "  direct;\n");
      }
      for (Family f : n.families()) {
        c.append("  ").append(f.isIpv4() ? "ipv4" : "ipv6").append(" { import all; export all;");
        if (f.isIpv4() != n.isIpv4()) {
          c.append(" extended next hop on;");
        }
        if (n.addPathReceive() || n.addPathSend()) {
          // RFC 7911
          c.append(" add paths ")
              .append(n.addPathReceive() && n.addPathSend() ? "on" : n.addPathSend() ? "tx" : "rx")
              .append(";");
        }
        c.append(" };\n");
      }
      c.append("}\n");
    }
    return c.toString();
  }

  @Override
  public SessionState sessionState(InetAddress neighbor) {
    String out = birdc("show protocols all " + protocolName(neighbor));
    Matcher m = BGP_STATE.matcher(out);
    return m.find() ? SessionState.parse(m.group(1)) : SessionState.IDLE;
  }

  private String protocolName(InetAddress neighbor) {
    return "n" + config.neighbors().indexOf(config.neighbor(neighbor));
  }

  @Override
  public List<Route> routes(Family family) {
    return parseRoutes(
        birdc("show route all table " + (family.isIpv4() ? "master4" : "master6")),
        protocolNeighbors());
  }

  private Map<String, InetAddress> protocolNeighbors() {
    Map<String, InetAddress> m = new java.util.HashMap<>();
    for (int i = 0; i < config.neighbors().size(); i++) {
      m.put("n" + i, config.neighbors().get(i).address());
    }
    return m;
  }

  /**
   * Parses {@code show route all}: only routes whose Type is BGP (not the static ones we
   * originate).
   */
  static List<Route> parseRoutes(String out, Map<String, InetAddress> protocols) {
    List<Route> routes = new ArrayList<>();
    RouteBuilder current = null;
    String prefix = null;
    for (String line : out.lines().toList()) {
      Matcher head = ROUTE_HEAD.matcher(line);
      if (head.matches()) {
        if (current != null) {
          current.addTo(routes);
        }
        if (head.group(1) != null) {
          prefix = head.group(1);
        }
        current =
            new RouteBuilder(
                IpPrefix.parse(prefix), protocols.get(head.group(3)), head.group(4) != null);
        continue;
      }
      if (current == null) {
        continue;
      }
      Matcher via = VIA.matcher(line);
      if (via.find()) {
        current.nextHops.add(Ip.parse(via.group(1)));
        continue;
      }
      Matcher attr = ATTR.matcher(line);
      if (attr.matches()) {
        String v = attr.group(2).strip();
        switch (attr.group(1)) {
          case "Type" -> current.bgp = v.startsWith("BGP");
          case "BGP.as_path" -> {
            for (String asn : v.replaceAll("[{}]", " ").trim().split("\\s+")) {
              if (!asn.isEmpty()) {
                current.asPath.add(Long.parseLong(asn));
              }
            }
          }
          case "BGP.next_hop" -> {
            // the attribute as received (IPv6: global, then link-local), not the resolved gateway
            current.bgpNextHops.clear();
            for (String a : v.split("\\s+")) {
              current.bgpNextHops.add(Ip.parse(a));
            }
          }
          case "BGP.med" -> current.med = OptionalLong.of(Long.parseLong(v));
          case "BGP.local_pref" -> current.localPref = OptionalLong.of(Long.parseLong(v));
          case "BGP.community", "BGP.large_community" -> {
            Matcher pm = PAIR.matcher(v);
            while (pm.find()) {
              current.communities.add(
                  pm.group(1) + ":" + pm.group(2) + (pm.group(3) != null ? ":" + pm.group(3) : ""));
            }
          }
          default -> {}
        }
      }
    }
    if (current != null) {
      current.addTo(routes);
    }
    return routes;
  }

  private static final class RouteBuilder {
    final IpPrefix prefix;
    final InetAddress from;
    final boolean best;
    final List<InetAddress> nextHops = new ArrayList<>();
    final List<InetAddress> bgpNextHops = new ArrayList<>();
    final List<Long> asPath = new ArrayList<>();
    final List<String> communities = new ArrayList<>();
    OptionalLong med = OptionalLong.empty();
    OptionalLong localPref = OptionalLong.empty();
    boolean bgp;

    RouteBuilder(IpPrefix prefix, InetAddress from, boolean best) {
      this.prefix = prefix;
      this.from = from;
      this.best = best;
    }

    void addTo(List<Route> routes) {
      if (bgp) {
        routes.add(
            new Route(
                prefix,
                bgpNextHops.isEmpty() ? nextHops : bgpNextHops,
                asPath,
                communities,
                med,
                localPref,
                from,
                best));
      }
    }
  }

  @Override
  public void announce(IpPrefix prefix) {
    if (originated.add(prefix)) {
      reconfigure();
    }
  }

  @Override
  public void withdraw(IpPrefix prefix) {
    if (originated.remove(prefix)) {
      reconfigure();
    }
  }

  private void reconfigure() {
    try {
      writeFile("bird.conf", configText());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    String out = birdc("configure");
    if (!out.contains("Reconfigured") && !out.contains("Reconfiguration in progress")) {
      throw new IllegalStateException("birdc configure failed: " + out);
    }
  }
}
