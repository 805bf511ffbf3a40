package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Protocol;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Address families: a peer carries the family of its own address, so an IPv6 address is announced
 * to IPv6 peers only (an unnumbered peer carries both); when no peer can carry it, its
 * advertisement says so with an empty peer map and the Service's {@code Announced} condition says
 * why.
 */
class AdvertisementFamiliesTest {
  private static final Duration WAIT = ReconcilersOnMock.WAIT;
  private static final String NA = ReconcilersOnMock.NA;

  private ReconcilersOnMock cluster;
  private KubernetesClient client;

  @BeforeEach
  void setUp() throws Exception {
    cluster =
        new ReconcilersOnMock(
            true,
            c -> {
              pool(c, "v4", "10.0.1.0/24", true);
              pool(c, "v6", "2001:db8:1::/120", true);
              peer(c, "node1", "9.9.9.9");
              peer(c, "node2", "9.9.9.9");
            });
    client = cluster.client;
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private void service(String name, String... families) {
    client
        .resource(
            lbService("test", name, Map.of())
                .editSpec()
                .withIpFamilies(families)
                .withIpFamilyPolicy(families.length == 2 ? "RequireDualStack" : "SingleStack")
                .endSpec()
                .build())
        .create();
    client
        .resource(
            slice("test", name, name + "-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
  }

  private io.fabric8.kubernetes.api.model.Condition announced(String service) {
    var s = client.services().inNamespace("test").withName(service).get();
    return s.getStatus().getConditions().stream()
        .filter(c -> Announcements.TYPE.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  @Test
  void anIpv6AddressWithOnlyIpv4PeersListsNoPeerAndTheServiceSaysWhy() {
    service("only6", "IPv6");
    await()
        .atMost(WAIT)
        .until(() -> ingress(client, "test", "only6").equals(List.of("2001:db8:1::1")));
    String advert = "only6-2001-db8-1--1";
    // written, and empty: decided, not forgotten
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    Map.of(),
                    client
                        .resources(BGPAdvertisement.class)
                        .inNamespace("test")
                        .withName(advert)
                        .get()
                        .getStatus()
                        .peers()));
    var created =
        client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    assertEquals(Protocol.IPV6, created.getSpec().protocol());
    assertEquals("2001:db8:1::1/128", created.getSpec().cidr());
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var c = announced("only6");
              assertNotNull(c);
              assertEquals("False", c.getStatus());
              assertEquals("NoPeerForFamily", c.getReason());
              assertTrue(c.getMessage().contains("2001:db8:1::1"), c.getMessage());
            });
    assertTrue(
        client.v1().events().inNamespace("test").list().getItems().stream()
            .anyMatch(
                e ->
                    "NotAnnounced".equals(e.getReason())
                        && e.getMessage().contains("2001:db8:1::1")));

    // an IPv6 session appears: it, and only it, is the target
    peer(client, "node1", "2001:db8::fe");
    cluster.awaitPeers(advert, Map.of("node1-65000-2001-db8--fe", NA));
  }

  @Test
  void aDualStackServiceIsAnnouncedToThePeersOfEachFamily() {
    peer(client, "node2", "2001:db8::fe");
    service("dual", "IPv4", "IPv6");
    cluster.awaitPeers(
        "dual-10-0-1-1", Map.of("node1-65000-9.9.9.9", NA, "node2-65000-9.9.9.9", NA));
    cluster.awaitPeers("dual-2001-db8-1--1", Map.of("node2-65000-2001-db8--fe", NA));
  }

  @Test
  void anUnnumberedPeerCarriesBothFamilies() {
    // node2's only session is unnumbered (interface eth1): IPv4 with IPv6 next hops and IPv6
    var unnumbered =
        new dev.sart.crds.BGPPeer(
            "node2-65000-if-eth1",
            new dev.sart.crds.BGPPeerSpec(
                65000L,
                null,
                null,
                null,
                null,
                "node2",
                null,
                new dev.sart.crds.SpeakerConfig("127.0.0.1:5000", null, null),
                null,
                null,
                null,
                "eth1"));
    unnumbered.getMetadata().setLabels(Map.of(dev.sart.crds.Sart.BGP_PEER_NODE_LABEL, "node2"));
    client.resource(unnumbered).create();
    service("dual", "IPv4", "IPv6");
    cluster.awaitPeers(
        "dual-10-0-1-1",
        Map.of("node1-65000-9.9.9.9", NA, "node2-65000-9.9.9.9", NA, "node2-65000-if-eth1", NA));
    cluster.awaitPeers("dual-2001-db8-1--1", Map.of("node2-65000-if-eth1", NA));
  }
}
