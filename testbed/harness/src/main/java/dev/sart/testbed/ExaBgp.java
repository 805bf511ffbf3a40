package dev.sart.testbed;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * ExaBGP 4.2 in the foreground. ExaBGP has no RIB CLI, so the driver runs a small API helper
 * ({@code exabgp-api.py}, started by ExaBGP from a {@code process} block): commands written to the
 * FIFO {@code exabgp.cmd} reach ExaBGP's API, and every JSON event ExaBGP emits (neighbour state
 * changes, parsed received UPDATEs) and every acknowledgement ("done"/"error") lands in {@code
 * exabgp.events}. {@link #sessionState} and {@link #routes} replay that file.
 *
 * <p>Every neighbour also listens on port 179 of its local address (ExaBGP's reconnect back-off is
 * not configurable and grows to 60 s, so peers connecting in keep tests quick), unless {@link
 * #withoutListening()} asks for ExaBGP's default (connect only); prefixes given at start are static
 * routes with {@code next-hop self}, later ones go through the API. ExaBGP does not choose best
 * paths: a route counts as best when it is the only one for its prefix.
 */
public final class ExaBgp extends Router {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HELPER = "exabgp-api.py";
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);

  private final Set<IpPrefix> originated = new LinkedHashSet<>();
  private final Feed feed = new Feed();
  private long eventsOffset;
  private final Map<InetAddress, String> neighborOptions = new java.util.HashMap<>();
  private boolean listen = true;

  public ExaBgp(Node node, RouterConfig config) {
    super(node, config);
    originated.addAll(config.originate());
  }

  /**
   * Extra statements for one neighbour's block, e.g. {@code "capability { asn4 disable; }"}; before
   * {@link #start()}.
   */
  public ExaBgp withNeighborOptions(String neighbor, String statements) {
    neighborOptions.put(config.neighbor(Ip.parse(neighbor)).address(), statements);
    return this;
  }

  /**
   * ExaBGP as it runs by default: it connects out to its neighbours and does not listen, so a
   * session comes up only through its own connection (before {@link #start()}).
   */
  public ExaBgp withoutListening() {
    listen = false;
    return this;
  }

  /**
   * Every JSON event ExaBGP emitted so far (one per line), e.g. to read an UPDATE's raw attributes.
   */
  public String events() {
    try {
      return Files.readString(file("exabgp.events"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String kind() {
    return "exabgp";
  }

  @Override
  protected List<String> requiredCommands() {
    return List.of("exabgp", "/usr/bin/python3", "mkfifo", "ip");
  }

  private Path file(String name) {
    return node.dir().resolve(name);
  }

  @Override
  protected void launch() throws IOException {
    try (InputStream in = ExaBgp.class.getResourceAsStream(HELPER)) {
      if (in == null) {
        throw new IOException("resource " + HELPER + " missing from the class path");
      }
      Files.copy(in, file(HELPER), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    Files.deleteIfExists(file("exabgp.ready"));
    Files.deleteIfExists(file("exabgp.cmd"));
    Shell.run("mkfifo", "-m", "600", file("exabgp.cmd").toString());
    Files.writeString(file("exabgp.events"), "");
    eventsOffset = 0;
    feed.clear();
    Map<InetAddress, InetAddress> locals = new HashMap<>();
    for (Neighbor n : config.neighbors()) {
      locals.put(n.address(), localAddress(n));
    }
    writeFile("exabgp.conf", configText(locals));
    spawn(
        "exabgp",
        List.of("exabgp", file("exabgp.conf").toString()),
        Map.of(
            "exabgp.daemon.user", "root",
            "exabgp.daemon.daemonize", "false",
            "exabgp.daemon.pid", "",
            "exabgp.log.destination", "stdout",
            "exabgp.api.ack", "true",
            "exabgp.api.cli", "false",
            "exabgp.tcp.bind", ""));
  }

  @Override
  protected boolean ready() {
    return Files.exists(file("exabgp.ready"));
  }

  /**
   * The node's address towards a neighbour: one in the neighbour's subnet, otherwise the source
   * address the kernel would pick to reach it (multihop). ExaBGP needs it for local-address.
   */
  InetAddress localAddress(Neighbor n) {
    try {
      for (JsonNode link : JSON.readTree(cli("ip", "-j", "address", "show"))) {
        for (JsonNode a : link.path("addr_info")) {
          InetAddress local = Ip.parse(a.path("local").asText());
          int len = a.path("prefixlen").asInt();
          if (local.getClass() == n.address().getClass()
              && !local.isLinkLocalAddress()
              && !local.equals(n.address())
              && new IpPrefix(local, len).equals(new IpPrefix(n.address(), len))) {
            return local;
          }
        }
      }
      String src =
          JSON.readTree(cli("ip", "-j", "route", "get", n.addressText()))
              .path(0)
              .path("prefsrc")
              .asText("");
      if (!src.isEmpty()) {
        return Ip.parse(src);
      }
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException(node + " has no address to reach neighbour " + n.addressText());
  }

  String configText(Map<InetAddress, InetAddress> locals) {
    StringBuilder c = new StringBuilder();
    c.append("process api {\n  run /usr/bin/python3 ")
        .append(file(HELPER))
        .append(' ')
        .append(file("exabgp.cmd"))
        .append(' ')
        .append(file("exabgp.events"))
        .append(' ')
        .append(file("exabgp.ready"))
        .append(";\n");
    c.append("  encoder json;\n}\n");
    for (Neighbor n : config.neighbors()) {
      c.append("neighbor ").append(n.addressText()).append(" {\n");
      c.append("  router-id ").append(config.routerIdText()).append(";\n");
      c.append("  local-address ").append(Ip.format(locals.get(n.address()))).append(";\n");
      c.append("  local-as ").append(config.asn()).append(";\n");
      c.append("  peer-as ").append(n.asn()).append(";\n");
      if (listen) {
        c.append("  listen 179;\n");
      }
      if (n.passive()) {
        c.append("  passive true;\n");
      }
      if (n.password() != null) {
        c.append("  md5-password \"").append(n.password()).append("\";\n");
      }
      if (n.multihopTtl() > 0) {
        c.append("  outgoing-ttl ").append(n.multihopTtl()).append(";\n");
      }
      if (n.ttlSecurityHops() > 0) {
        throw new IllegalArgumentException(
            "the ExaBGP driver does not configure GTSM: " + n.addressText());
      }
      if (!n.as4()) {
        c.append("  capability { asn4 disable; }\n");
      }
      if (neighborOptions.containsKey(n.address())) {
        c.append("  ").append(neighborOptions.get(n.address())).append('\n');
      }
      c.append("  family {\n");
      n.families().stream()
          .sorted()
          .forEach(f -> c.append(f.isIpv4() ? "    ipv4 unicast;\n" : "    ipv6 unicast;\n"));
      c.append("  }\n");
      c.append(
          "  api {\n    processes [ api ];\n    neighbor-changes;\n    receive { parsed; update; }\n  }\n");
      c.append("  static {\n");
      originated.stream()
          .filter(p -> n.families().contains(Family.of(p)))
          .forEach(p -> c.append("    route ").append(p).append(" next-hop self;\n"));
      c.append("  }\n}\n");
    }
    return c.toString();
  }

  /**
   * Sends one command to ExaBGP's API and waits for its acknowledgement, e.g. {@code announce
   * attribute next-hop self attribute [ 0x99 0xc0 0x0102 ] nlri 203.0.113.0/24} to inject an
   * arbitrary path attribute. Throws when ExaBGP answers "error" (it did not understand or could
   * not apply the command; its log says why).
   */
  public void send(String apiCommand) {
    if (apiCommand.contains("\n")) {
      throw new IllegalArgumentException("one command per call: " + apiCommand);
    }
    if (!isRunning()) {
      throw new IllegalStateException(this + " is not running:\n" + logTail());
    }
    int before = sync().acks;
    // read-write: opening a FIFO so never blocks, even if the helper has gone
    try (RandomAccessFile fifo = new RandomAccessFile(file("exabgp.cmd").toFile(), "rw")) {
      fifo.write((apiCommand + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    await("%s: ack of `%s`".formatted(this, apiCommand))
        .atMost(ACK_TIMEOUT)
        .pollInterval(Duration.ofMillis(10))
        .failFast("%s stopped:%n%s".formatted(this, logTail()), () -> !isRunning())
        .until(() -> sync().acks > before);
    if (!"done".equals(feed.lastAck)) {
      throw new IllegalArgumentException("ExaBGP refused `" + apiCommand + "`:\n" + logTail());
    }
  }

  @Override
  public SessionState sessionState(InetAddress neighbor) {
    config.neighbor(neighbor);
    return sync().state(neighbor);
  }

  @Override
  public List<Route> routes(Family family) {
    return sync().routes(family);
  }

  @Override
  public void announce(IpPrefix prefix) {
    if (originated.add(prefix)) {
      send("announce route " + prefix + " next-hop self");
    }
  }

  @Override
  public void withdraw(IpPrefix prefix) {
    if (originated.remove(prefix)) {
      send("withdraw route " + prefix);
    }
  }

  /** Feeds the complete lines the helper appended since the last call. */
  private Feed sync() {
    try (RandomAccessFile f = new RandomAccessFile(file("exabgp.events").toFile(), "r")) {
      long length = f.length();
      if (length > eventsOffset) {
        byte[] buf = new byte[Math.toIntExact(length - eventsOffset)];
        f.seek(eventsOffset);
        f.readFully(buf);
        int end = buf.length;
        while (end > 0 && buf[end - 1] != '\n') {
          end--;
        }
        feed.accept(new String(buf, 0, end, StandardCharsets.UTF_8));
        eventsOffset += end;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return feed;
  }

  /**
   * The state replayed from ExaBGP's API output: session state and Adj-RIB-In per neighbour, and
   * the acknowledgements of commands. "connected" (TCP up, OPEN about to be sent) counts as
   * OpenSent; "down" empties the neighbour's routes, as ExaBGP sends no withdrawals then.
   */
  static final class Feed {
    final Map<InetAddress, SessionState> states = new HashMap<>();
    final Map<InetAddress, Map<IpPrefix, Route>> ribs = new LinkedHashMap<>();
    int acks;
    String lastAck;

    void clear() {
      states.clear();
      ribs.clear();
      acks = 0;
      lastAck = null;
    }

    /** Takes one or more lines of the events file. */
    void accept(String lines) {
      for (String line : lines.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
        if (!line.startsWith("{")) {
          if (line.equals("done") || line.equals("error")) {
            acks++;
            lastAck = line;
          }
          continue;
        }
        try {
          event(JSON.readTree(line));
        } catch (JsonProcessingException e) {
          throw new IllegalStateException("bad ExaBGP event: " + line, e);
        }
      }
    }

    private void event(JsonNode e) {
      JsonNode neighbor = e.path("neighbor");
      if (!neighbor.path("address").has("peer")) {
        return;
      }
      InetAddress peer = Ip.parse(neighbor.path("address").path("peer").asText());
      switch (e.path("type").asText()) {
        case "state" -> {
          SessionState s =
              switch (neighbor.path("state").asText()) {
                case "connected" -> SessionState.OPEN_SENT;
                case "up" -> SessionState.ESTABLISHED;
                case "down" -> SessionState.IDLE;
                default -> SessionState.parse(neighbor.path("state").asText());
              };
          states.put(peer, s);
          if (s != SessionState.ESTABLISHED) {
            ribs.remove(peer);
          }
        }
        case "update" -> update(peer, neighbor.path("message").path("update"));
        default -> {}
      }
    }

    private void update(InetAddress peer, JsonNode update) {
      Map<IpPrefix, Route> rib = ribs.computeIfAbsent(peer, k -> new LinkedHashMap<>());
      for (JsonNode nlris : iterable(update.path("withdraw"))) {
        for (JsonNode nlri : nlris) {
          rib.remove(IpPrefix.parse(nlri.path("nlri").asText()));
        }
      }
      JsonNode attrs = update.path("attribute");
      List<Long> asPath = new ArrayList<>();
      attrs.path("as-path").forEach(a -> asPath.add(a.asLong()));
      attrs.path("as-set").forEach(a -> asPath.add(a.asLong()));
      List<String> communities = new ArrayList<>();
      for (String kind : List.of("community", "large-community")) {
        for (JsonNode c : attrs.path(kind)) {
          List<String> parts = new ArrayList<>();
          c.forEach(p -> parts.add(p.asText()));
          communities.add(String.join(":", parts));
        }
      }
      OptionalLong med =
          attrs.has("med") ? OptionalLong.of(attrs.get("med").asLong()) : OptionalLong.empty();
      OptionalLong localPref =
          attrs.has("local-preference")
              ? OptionalLong.of(attrs.get("local-preference").asLong())
              : OptionalLong.empty();
      // {"ipv6 unicast": {"2001:db8::2": [{"nlri": P}], "fe80::1": [{"nlri": P}]}}: an MP_REACH
      // with a
      // link-local next hop lists the NLRI under both; the global one is the next hop.
      Map<IpPrefix, List<InetAddress>> nextHops = new LinkedHashMap<>();
      update
          .path("announce")
          .properties()
          .forEach(
              family -> {
                if (family.getKey().endsWith(" unicast")) {
                  family
                      .getValue()
                      .properties()
                      .forEach(
                          nh ->
                              nh.getValue()
                                  .forEach(
                                      nlri ->
                                          nextHops
                                              .computeIfAbsent(
                                                  IpPrefix.parse(nlri.path("nlri").asText()),
                                                  k -> new ArrayList<>())
                                              .add(Ip.parse(nh.getKey()))));
                }
              });
      nextHops.forEach(
          (prefix, hops) -> {
            List<InetAddress> global = hops.stream().filter(h -> !h.isLinkLocalAddress()).toList();
            rib.put(
                prefix,
                new Route(
                    prefix,
                    global.isEmpty() ? hops : global,
                    asPath,
                    communities,
                    med,
                    localPref,
                    peer,
                    false));
          });
    }

    private static Iterable<JsonNode> iterable(JsonNode object) {
      List<JsonNode> values = new ArrayList<>();
      object.properties().forEach(f -> values.add(f.getValue()));
      return values;
    }

    SessionState state(InetAddress neighbor) {
      return states.getOrDefault(neighbor, SessionState.IDLE);
    }

    /** Every neighbour's routes of a family; best when no other neighbour sent the same prefix. */
    List<Route> routes(Family family) {
      List<Route> all =
          ribs.values().stream()
              .flatMap(r -> r.values().stream())
              .filter(r -> Family.of(r.prefix()) == family)
              .toList();
      Map<IpPrefix, Long> counts = new HashMap<>();
      all.forEach(r -> counts.merge(r.prefix(), 1L, Long::sum));
      return all.stream()
          .map(
              r ->
                  new Route(
                      r.prefix(),
                      r.nextHops(),
                      r.asPath(),
                      r.communities(),
                      r.med(),
                      r.localPref(),
                      r.from(),
                      counts.get(r.prefix()) == 1))
          .toList();
    }
  }
}
