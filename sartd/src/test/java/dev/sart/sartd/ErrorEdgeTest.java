package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every sub-command of sartd answers a bad flag or a bad file with one line, {@code error:
 * file:line: what is wrong and what is allowed}, and exit code 2; no stack trace unless {@code
 * --debug}. Nothing starts before the inputs are checked (no port is bound by these runs).
 */
class ErrorEdgeTest {
  @TempDir Path dir;

  record Outcome(int code, String out, String err) {}

  private Outcome sartd(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Sartd.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  private Path file(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  /** Exit 2, one error line (plus a help hint for flags), no stack trace. */
  private static void assertUsageError(Outcome o, String expected) {
    assertEquals(2, o.code(), o.err());
    String first = o.err().lines().findFirst().orElse("");
    assertEquals(expected, first);
    assertFalse(o.err().contains("\tat "), "a stack trace: " + o.err());
    assertFalse(o.err().contains("Exception"), "an exception name: " + o.err());
  }

  @Test
  void bgpConfigMistakesNameTheirLine() throws IOException {
    Path notANumber = file("a.yaml", "router_id: 192.0.2.1\nasn: notanumber\n");
    assertUsageError(
        sartd("bgp", "-f", notANumber.toString()),
        "error: " + notANumber + ":2: asn: 'notanumber' is not a whole number");

    Path origin =
        file(
            "b.yaml",
            """
            asn: 65001
            router_id: 192.0.2.1
            paths:
              - prefixes: [192.0.2.0/24]
                attributes:
                  origin: 7
            """);
    assertUsageError(
        sartd("bgp", "-f", origin.toString()),
        "error: "
            + origin
            + ":6: paths[0].attributes.origin: 7 is not an origin (0 IGP, 1 EGP, 2 INCOMPLETE)");

    Path neighbor =
        file(
            "c.yaml",
            """
            asn: 65001
            router_id: 192.0.2.1
            neighbors:
              - asn: 65000
                address: 192.0.2.300
            """);
    assertUsageError(
        sartd("bgp", "-f", neighbor.toString()),
        "error: "
            + neighbor
            + ":5: neighbors[0].address: '192.0.2.300' is not an IP address (192.0.2.1,"
            + " 2001:db8::1)");

    Path typo = file("d.yaml", "asn: 65001\nrouter-id: 192.0.2.1\n");
    Outcome o = sartd("bgp", "-f", typo.toString());
    assertEquals(2, o.code());
    assertTrue(
        o.err()
            .startsWith(
                "error: " + typo + ":2: unknown key 'router-id': did you mean 'router_id'?"),
        o.err());

    Path policy =
        file(
            "e.yaml",
            """
            asn: 65001
            neighbors:
              - asn: 65000
                address: 192.0.2.2
                import_policy: nope
            """);
    assertUsageError(
        sartd("bgp", "-f", policy.toString()),
        "error: " + policy + ":5: neighbors[0].import_policy: no policy 'nope' (defined: [])");

    Path yaml = file("f.yaml", "asn: [65001\n");
    Outcome bad = sartd("bgp", "-f", yaml.toString());
    assertEquals(2, bad.code());
    assertTrue(bad.err().startsWith("error: " + yaml + ":"), bad.err());
    assertTrue(bad.err().contains("not valid YAML"), bad.err());

    assertUsageError(
        sartd("bgp", "-f", dir.resolve("missing.yaml").toString()),
        "error: " + dir.resolve("missing.yaml") + ": no such file");
  }

  @Test
  void bgpFlagMistakes() {
    assertUsageError(
        sartd("bgp", "--api", "nonsense", "--port", "0"),
        "error: --api: 'nonsense': expected host:port with an IP address (127.0.0.1:5000,"
            + " [::1]:5000)");
    assertUsageError(
        sartd("bgp", "--router-id", "not-an-ip", "--port", "0", "--api", "127.0.0.1:0"),
        "error: --router-id: 'not-an-ip' is not a router id (an IPv4 address such as 192.0.2.1)");
    assertUsageError(sartd("bgp", "--bogus"), "error: Unknown option: '--bogus'");
    assertUsageError(
        sartd("bgp", "--port", "many"),
        "error: Invalid value for option '--port': 'many' is not an int");
  }

  @Test
  void fibConfigMistakesNameTheirLine() throws IOException {
    Path fib =
        file(
            "fib.yaml",
            """
            channels:
              - name: c
                ip_version: ipv4
                subscribers:
                  - protocol: ospf
                publishers:
                  - protocol: kernel
                    tables: [100]
            """);
    assertUsageError(
        sartd("fib", "-f", fib.toString()),
        "error: " + fib + ":5: channels[0].subscribers[0]: protocol 'ospf' is not bgp or kernel");
    Path wrongType = file("fib2.yaml", "route_protocol: lots\nchannels: []\n");
    assertUsageError(
        sartd("fib", "-f", wrongType.toString()),
        "error: " + wrongType + ":1: route_protocol: 'lots' is not a whole number");
  }

  @Test
  void agentCniConfigMistakesNameTheirLine() throws IOException {
    Path cni =
        file(
            "cni.json",
            """
            {
              "socket": "/run/sart-test.sock",
              "mtu": "big",
              "blocks": []
            }
            """);
    assertUsageError(
        sartd("agent", "--node-name", "n1", "--cni-config", cni.toString()),
        "error: " + cni + ":3: mtu: 'big' is not a whole number >= 0");
    Path block =
        file(
            "cni2.json",
            """
            {
              "blocks": [
                {"pool": "p", "cidr": "198.51.100.0/24"},
                {"pool": "p", "cidr": "nonsense"}
              ]
            }
            """);
    assertUsageError(
        sartd("agent", "--node-name", "n1", "--cni-config", block.toString()),
        "error: " + block + ":4: blocks[1].cidr: 'nonsense' is not a prefix (192.0.2.0/24)");
  }

  @Test
  void nodeFibConfigMistakesNameTheirLine() throws IOException {
    Path fib = file("fib.yaml", "channels:\n  - name: c\n    ip_version: ipv5\n");
    assertUsageError(
        sartd("node", "--node-name", "n1", "--fib-config", fib.toString()),
        "error: " + fib + ":3: channels[0].ip_version: 'ipv5' is not ipv4, ipv6 or both");
  }

  @Test
  void everySubCommandRefusesAnUnknownFlagTheSameWay() {
    List<String> wrong = new ArrayList<>();
    for (String sub : List.of("bgp", "fib", "agent", "node", "controller", "certgen", "version")) {
      Outcome o =
          sub.equals("fib")
              ? sartd(sub, "-f", "fib.yaml", "--no-such-flag")
              : sartd(sub, "--no-such-flag");
      if (o.code() != 2
          || !o.err().startsWith("error: Unknown option: '--no-such-flag'")
          || !o.err().contains("(see: sartd " + sub + " --help)")) {
        wrong.add(sub + ": " + o.code() + " " + o.err());
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void logFlagsAreCheckedAndTheLogFileGetsTheWarnings() throws IOException {
    assertUsageError(
        sartd("bgp", "--level", "loud"),
        "error: --level: 'loud' is not one of error, warn, info, debug, trace");
    Path fib =
        file(
            "fib.yaml",
            """
            channels:
              - name: c
                colour: blue
                subscribers: [{protocol: kernel, tables: [1]}]
                publishers: [{protocol: kernel, tables: [100]}]
            """);
    Path log = dir.resolve("sartd.log");
    // sart's -o/--log-file: the ignored key is logged there, then the bad flag stops the start
    assertUsageError(
        sartd("fib", "-f", fib.toString(), "-o", log.toString(), "--endpoint", "nonsense"),
        "error: --endpoint: 'nonsense' is not host:port");
    String logged = Files.readString(log);
    assertTrue(
        logged.contains(fib + ":3: channels[0]: key 'colour' is not used by sartd: ignored"),
        logged);
  }

  @Test
  void debugShowsTheStackTrace() throws IOException {
    Path notANumber = file("a.yaml", "asn: notanumber\n");
    Outcome o = sartd("bgp", "--debug", "-f", notANumber.toString());
    assertEquals(2, o.code());
    assertTrue(o.err().startsWith("error: " + notANumber + ":1: asn:"), o.err());
    assertTrue(o.err().contains("\tat "), "--debug: a stack trace: " + o.err());
  }
}
