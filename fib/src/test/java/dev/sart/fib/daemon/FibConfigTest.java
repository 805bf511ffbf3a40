package dev.sart.fib.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.fib.netlink.Family;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FibConfigTest {
  @TempDir Path dir;

  private FibConfig load(String yaml) throws IOException {
    Path f = dir.resolve("fib.yaml");
    Files.writeString(f, yaml);
    return FibConfig.load(f);
  }

  private String error(String yaml) {
    return assertThrows(IllegalArgumentException.class, () -> load(yaml)).getMessage();
  }

  @Test
  void sartsExampleReadsAsWritten() throws IOException {
    FibConfig c =
        load(
            """
        endpoint: 127.0.0.1:5001
        channels:
          - name: kernel_tables
            ip_version: ipv4
            subscribers:
              - protocol: kernel
                tables: [254, 8]
            publishers:
              - protocol: bgp
                endpoint: 127.0.0.1:5100
          - name: bgp_rib
            ip_version: ipv4
            subscribers:
              - protocol: bgp
                endpoint: 127.0.0.1:5000
            publishers:
              - protocol: kernel
                tables: [254]
        """);
    assertEquals("127.0.0.1:5001", c.endpoint());
    assertEquals(186, c.routeProtocol());
    assertEquals(2, c.channels().size());
    FibConfig.ChannelConfig k = c.channels().get(0);
    assertEquals("kernel_tables", k.name());
    assertEquals(Set.of(Family.INET), k.families());
    assertEquals(List.of(254, 8), k.subscribers().getFirst().tables());
    assertEquals(FibConfig.Protocol.bgp, k.publishers().getFirst().protocol());
    assertEquals("127.0.0.1:5100", k.publishers().getFirst().endpoint());
    FibConfig.Endpoint watch = c.channels().get(1).subscribers().getFirst();
    assertEquals(FibConfig.Mode.watch, watch.mode());
    assertEquals("bgp 127.0.0.1:5000", watch.describe());
  }

  @Test
  void additionsRouteProtocolModeAndBothFamilies() throws IOException {
    FibConfig c =
        load(
            """
        route_protocol: 200
        channels:
          - name: c
            subscribers: [{protocol: bgp, endpoint: "[::1]:5010", mode: push}]
            publishers: [{protocol: kernel, tables: [100, 4000000000]}]
        """);
    assertEquals("127.0.0.1:5001", c.endpoint(), "sart's default endpoint");
    assertEquals(200, c.routeProtocol());
    assertEquals(Set.of(Family.INET, Family.INET6), c.channels().getFirst().families());
    assertEquals(FibConfig.Mode.push, c.channels().getFirst().subscribers().getFirst().mode());
    assertEquals(
        "kernel 100,4000000000", c.channels().getFirst().publishers().getFirst().describe());
  }

  private static final String CHANNEL =
      """
      channels:
        - name: c
          ip_version: %s
          subscribers: [%s]
          publishers: [%s]
      """;

  private String channelError(String ipVersion, String subscriber, String publisher) {
    return error(CHANNEL.formatted(ipVersion, subscriber, publisher));
  }

  @Test
  void mistakesAreNamedWithTheFileAndThePlace() {
    String unknown = error("channels: []\nendpont: 1.2.3.4:5\n");
    assertTrue(
        unknown.contains("fib.yaml")
            && unknown.contains("unknown key 'endpont'")
            && unknown.contains("endpoint"),
        unknown);
    assertTrue(error("channels: []\n").contains("no 'channels'"));
    assertTrue(error("").contains("empty"));
    assertEquals(
        "channels[0].subscribers[0]: protocol 'ospf' is not bgp or kernel",
        tail(channelError("ipv4", "{protocol: ospf}", "{protocol: kernel, tables: [1]}")));
    assertEquals(
        "channels[0].ip_version: 'ipv5' is not ipv4, ipv6 or both",
        tail(
            channelError(
                "ipv5", "{protocol: kernel, tables: [1]}", "{protocol: kernel, tables: [2]}")));
    assertEquals(
        "channels[0].publishers[0]: protocol kernel needs 'tables' (e.g. [254])",
        tail(channelError("ipv4", "{protocol: kernel, tables: [1]}", "{protocol: kernel}")));
    assertEquals(
        "channels[0].subscribers[0]: protocol bgp needs an 'endpoint' (host:port of the speaker's API)",
        tail(channelError("ipv4", "{protocol: bgp}", "{protocol: kernel, tables: [2]}")));
    assertEquals(
        "channels[0].publishers[0]: table 255 is not 1..4294967295 (and not 255, the local table)",
        tail(
            channelError(
                "ipv4", "{protocol: kernel, tables: [1]}", "{protocol: kernel, tables: [255]}")));
    assertEquals(
        "channels[0].subscribers[0].endpoint: 'localhost' is not host:port",
        tail(
            channelError(
                "ipv4",
                "{protocol: bgp, endpoint: localhost}",
                "{protocol: kernel, tables: [2]}")));
    assertEquals(
        "channels[0].publishers[0]: 'mode' is for subscribers only",
        tail(
            channelError(
                "ipv4",
                "{protocol: kernel, tables: [1]}",
                "{protocol: bgp, endpoint: '1.2.3.4:5', mode: push}")));
    String type = error("channels: [{name: c, subscribers: [{protocol: kernel, tables: [x]}]}]\n");
    assertTrue(type.contains("channels[0].subscribers[0].tables[0]"), type);
  }

  /** The message after "FILE: ". */
  private static String tail(String message) {
    return message.substring(message.indexOf("channels["));
  }

  @Test
  void twoChannelsMayNotWriteOneTableAndNamesAreUnique() {
    String twice =
        error(
            """
        channels:
          - {name: a, ip_version: ipv4, subscribers: [{protocol: kernel, tables: [1]}], publishers: [{protocol: kernel, tables: [100]}]}
          - {name: b, subscribers: [{protocol: kernel, tables: [2]}], publishers: [{protocol: kernel, tables: [100]}]}
        """);
    assertTrue(
        twice.endsWith(
            "channels[1].publishers: table 100 (ipv4) is published to by another channel too"),
        twice);
    String names =
        error(
            """
        channels:
          - {name: a, subscribers: [{protocol: kernel, tables: [1]}], publishers: [{protocol: kernel, tables: [100]}]}
          - {name: a, subscribers: [{protocol: kernel, tables: [2]}], publishers: [{protocol: kernel, tables: [101]}]}
        """);
    assertTrue(names.endsWith("channels[1].name: 'a' is the name of another channel too"), names);
  }

  @Test
  void theKernelsOwnProtocolNumbersAreRefused() {
    String e =
        error(
            "route_protocol: 2\nchannels: [{name: a, subscribers: [{protocol: kernel, tables: [1]}], "
                + "publishers: [{protocol: kernel, tables: [100]}]}]\n");
    assertTrue(e.endsWith("route_protocol 2 must be 5..255 (0..4 are the kernel's)"), e);
  }
}
