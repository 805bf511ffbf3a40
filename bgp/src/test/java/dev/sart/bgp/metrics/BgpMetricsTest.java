package dev.sart.bgp.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Ip;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The meters follow the configured peers; a fresh passive peer is Idle with nothing counted. */
class BgpMetricsTest {
  private final BgpServer server = new BgpServer(0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void metersComeAndGoWithPeers() throws Exception {
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    BgpMetrics metrics = new BgpMetrics(server, registry);
    metrics.refresh();
    assertEquals(List.of(), registry.getMeters());
    PeerConfig c = PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002);
    server.addPeer(
        c.toBuilder().passive(true).password(null).multihopTtl(0).ttlSecurity(false).build());
    metrics.refresh();
    metrics.refresh(); // idempotent
    var peer =
        registry.find("sart.bgp.session.up").tag("peer", "192.0.2.2").tag("peer_asn", "65002");
    assertEquals(0, peer.gauge().value());
    // a passive peer waits in Active (the start runs on the peer's loop)
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(
            () ->
                registry.find("sart.bgp.session.state").tag("state", "Active").gauge().value()
                    == 1);
    assertEquals(
        0, registry.find("sart.bgp.session.state").tag("state", "Established").gauge().value());
    assertEquals(6, registry.find("sart.bgp.session.state").gauges().size());
    assertEquals(
        0, registry.find("sart.bgp.messages.sent").tag("type", "open").functionCounter().count());
    assertEquals(0, registry.find("sart.bgp.received.prefixes").tag("afi", "ipv6").gauge().value());
    server.deletePeer(InetAddress.getByName("192.0.2.2")).join();
    metrics.refresh();
    assertNull(registry.find("sart.bgp.session.up").gauge());
    assertEquals(List.of(), registry.getMeters());
  }
}
