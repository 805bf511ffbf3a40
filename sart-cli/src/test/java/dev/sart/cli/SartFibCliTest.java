package dev.sart.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sart.fib.daemon.FibConfig;
import dev.sart.fib.daemon.FibDaemon;
import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.Rtnl;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sart fib ...} against the real FibManagerApi of a FIB daemon whose channel copies kernel
 * table 100 into table 200 of a test namespace.
 */
class SartFibCliTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Netns ns;
  private Netlink nl;
  private FibDaemon daemon;
  private String endpoint;

  @BeforeEach
  void start() {
    Node node = testbed.topology().node("fib");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    int v0 = nl.links().get("v0").index();
    nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
    nl.routes()
        .add(
            Route.of("198.51.100.0/24")
                .table(100)
                .protocol(Rtnl.RTPROT_STATIC)
                .nextHops(List.of(NextHop.via("192.0.2.1"), NextHop.via("192.0.2.2")))
                .build());
    nl.routes()
        .add(
            Route.of("203.0.113.0/24")
                .table(100)
                .protocol(Rtnl.RTPROT_STATIC)
                .via("192.0.2.1")
                .build());
    FibConfig config =
        new FibConfig(
            "127.0.0.1:0",
            186,
            List.of(
                new FibConfig.ChannelConfig(
                    "k2k",
                    Set.of(Family.INET),
                    List.of(
                        new FibConfig.Endpoint(
                            FibConfig.Protocol.kernel, null, List.of(100), null)),
                    List.of(
                        new FibConfig.Endpoint(
                            FibConfig.Protocol.kernel, null, List.of(200), null)))));
    daemon = FibDaemon.start(config, new SimpleMeterRegistry(), ns, FibDaemon.Options.DEFAULT);
    await().atMost(Duration.ofSeconds(30)).until(daemon::ready);
    endpoint = "127.0.0.1:" + daemon.managerPort();
  }

  @AfterEach
  void stop() {
    daemon.close();
    nl.close();
    ns.close();
  }

  record Run(int code, String out, String err) {}

  private static Run sart(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Sart.run(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  private JsonNode json(String... args) throws Exception {
    String[] all = new String[args.length + 4];
    all[0] = "-e";
    all[1] = endpoint;
    all[2] = "-o";
    all[3] = "json";
    System.arraycopy(args, 0, all, 4, args.length);
    Run r = sart(all);
    assertEquals(0, r.code(), r.err());
    return new ObjectMapper().readTree(r.out());
  }

  @Test
  void channelListAndGetShowSubscribersAndPublishers() throws Exception {
    JsonNode list = json("fib", "channel", "list");
    assertEquals(1, list.get("channels").size());
    JsonNode c = json("fib", "channel", "get", "k2k");
    assertEquals("k2k", c.get("name").asText());
    assertEquals("kernel", c.get("subscribers").get(0).get("type").asText());
    assertEquals(100, c.get("subscribers").get(0).get("tables").get(0).asInt());
    assertEquals(200, c.get("publishers").get(0).get("tables").get(0).asInt());
    Run plain = sart("-e", endpoint, "fib", "channel", "get", "k2k");
    assertEquals(
        "Channel k2k\n  Subscribers:\n    kernel tables 100\n  Publishers:\n    kernel tables 200\n",
        plain.out());
    Run yaml = sart("-e", endpoint, "-o", "yaml", "fib", "channel", "get", "k2k");
    assertEquals(
        "k2k", new ObjectMapper(new YAMLFactory()).readTree(yaml.out()).get("name").asText());
  }

  @Test
  void channelRouteListsTheSelectedRoutes() throws Exception {
    JsonNode routes = json("fib", "channel", "route", "k2k").get("routes");
    assertEquals(2, routes.size());
    JsonNode ecmp = routes.get(0);
    assertEquals("198.51.100.0/24", ecmp.get("destination").asText());
    assertEquals(
        List.of("192.0.2.1", "192.0.2.2"),
        ecmp.get("nextHops").valueStream().map(h -> h.get("gateway").asText()).toList());
    assertEquals(1, ecmp.get("ad").asInt(), "a static route's distance");
    assertEquals("ipv4", ecmp.get("version").asText());
    Run plain = sart("-e", endpoint, "fib", "channel", "route", "k2k");
    List<String> lines = plain.out().lines().toList();
    assertEquals(
        List.of("DESTINATION", "NEXT", "HOPS", "PROTOCOL", "SCOPE", "TYPE", "AD", "PRIORITY"),
        List.of(lines.getFirst().split("\\s+")));
    assertEquals(
        List.of(
            "198.51.100.0/24", "192.0.2.1,192.0.2.2", "static", "universe", "unicast", "1", "1"),
        List.of(lines.get(1).split("\\s+")));
  }

  @Test
  void errorsNameTheChannelAndTheDaemon() {
    Run missing = sart("-e", endpoint, "fib", "channel", "get", "nope");
    assertEquals(1, missing.code());
    assertEquals("error: not found: no channel 'nope' (have [k2k])", missing.err().strip());
    Run down = sart("-e", "127.0.0.1:1", "fib", "channel", "list");
    assertEquals(2, down.code());
    assertEquals(
        "error: cannot reach the sart API at 127.0.0.1:1 (is `sartd fib` running? use -e host:port)",
        down.err().strip());
  }

  @Test
  void withoutETheFibCommandsUseSartsFibEndpoint() {
    picocli.CommandLine cl = Commands.all();
    cl.parseArgs("fib", "channel", "list");
    picocli.CommandLine.ParseResult pr = cl.getParseResult();
    while (pr.hasSubcommand()) {
      pr = pr.subcommand();
    }
    assertEquals("localhost:5001", new FibCommands.Ctx(pr.commandSpec()).endpoint());
    cl = Commands.all();
    cl.parseArgs("fib", "-e", "192.0.2.1:7", "channel", "list");
    pr = cl.getParseResult();
    while (pr.hasSubcommand()) {
      pr = pr.subcommand();
    }
    assertEquals("192.0.2.1:7", new FibCommands.Ctx(pr.commandSpec()).endpoint());
    cl = Commands.all();
    cl.parseArgs("bgp", "global", "get");
    assertEquals(
        "localhost:5000", ((Sart) cl.getCommand()).endpoint, "the speaker's default is unchanged");
  }
}
