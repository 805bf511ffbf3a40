package dev.sart.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPPeer;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Protocol;
import dev.sart.crds.SpeakerConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two writers of one NodeBGP's {@code spec.peers} (the controller and the node's agent): each
 * removes its own peer from the list as it read it; neither removal is lost, and no other peer is
 * removed by a stale index. The same for a BGPAdvertisement's {@code status.peers} map.
 */
class LockedEditTest {
  private static final SpeakerConfig SPEAKER = new SpeakerConfig("127.0.0.1:5000", null, null);

  private KubernetesMockServer server;
  private KubernetesClient client;

  @BeforeEach
  void setUp() {
    server = MockCluster.server();
    client = server.createClient();
    client
        .resource(
            new NodeBGP(
                "node1",
                new NodeBGPSpec(
                    65001L, "192.0.2.1", SPEAKER, List.of(peer("a"), peer("b"), peer("c")))))
        .create();
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.destroy();
  }

  private static NodeBGPPeer peer(String name) {
    return new NodeBGPPeer(
        name, new BGPPeerSpec(65000L, "192.0.2.9", null, null, null, "node1", null, SPEAKER, null));
  }

  private static NodeBGP without(NodeBGP n, String name) {
    var peers = new ArrayList<>(n.getSpec().peers());
    peers.removeIf(p -> p.name().equals(name));
    n.setSpec(
        new NodeBGPSpec(n.getSpec().asn(), n.getSpec().routerId(), n.getSpec().speaker(), peers));
    return n;
  }

  private List<String> names() {
    return client.resources(NodeBGP.class).withName("node1").get().getSpec().peers().stream()
        .map(NodeBGPPeer::name)
        .toList();
  }

  @Test
  void aConcurrentWriteIsNeitherLostNorMisapplied() {
    var calls = new AtomicInteger();
    var resource = client.resources(NodeBGP.class).withName("node1");
    LockedEdit.edit(
        client,
        resource,
        n -> {
          if (calls.incrementAndGet() == 1) {
            // the other writer removes b between this writer's read and its write
            LockedEdit.edit(client, resource, other -> without(other, "b"));
          }
          return without(n, "c");
        });
    assertEquals(List.of("a"), names());
    assertEquals(2, calls.get(), "the change is applied again to the newer object");
  }

  @Test
  void aConcurrentStatusWriteIsNeitherLostNorUndone() {
    // an advertisement's status.peers, written by the controller and by each node's agent
    client
        .resource(
            new BGPAdvertisement(
                "default",
                "x-10-0-1-1",
                new BGPAdvertisementSpec("10.0.1.1/32", AddressType.SERVICE, Protocol.IPV4, null)))
        .create();
    var resource =
        client.resources(BGPAdvertisement.class).inNamespace("default").withName("x-10-0-1-1");
    LockedEdit.editStatus(
        client, resource, a -> withPeers(a, Map.of("a", NOT, "b", NOT, "c", NOT)));
    var calls = new AtomicInteger();
    LockedEdit.editStatus(
        client,
        resource,
        a -> {
          if (calls.incrementAndGet() == 1) {
            // the controller removes b (Withdraw done) between the agent's read and its write
            LockedEdit.editStatus(
                client, resource, other -> withPeers(other, Map.of("a", NOT, "c", NOT)));
          }
          var peers = new HashMap<>(a.getStatus().peers());
          peers.put("a", AdvertiseStatus.Advertised);
          return withPeers(a, peers);
        });
    assertEquals(
        Map.of("a", AdvertiseStatus.Advertised, "c", NOT), resource.get().getStatus().peers());
    assertEquals(2, calls.get(), "the change is applied again to the newer status");
    assertEquals("10.0.1.1/32", resource.get().getSpec().cidr());
  }

  private static final AdvertiseStatus NOT = AdvertiseStatus.NotAdvertised;

  private static BGPAdvertisement withPeers(BGPAdvertisement a, Map<String, AdvertiseStatus> p) {
    a.setStatus(new BGPAdvertisementStatus(p));
    return a;
  }

  @Test
  void anUnchangedObjectIsNotWrittenAndAGoneOneIsNull() {
    var resource = client.resources(NodeBGP.class).withName("node1");
    String version = resource.get().getMetadata().getResourceVersion();
    LockedEdit.edit(client, resource, n -> n);
    assertEquals(version, resource.get().getMetadata().getResourceVersion());
    assertNull(
        LockedEdit.edit(
            client, client.resources(NodeBGP.class).withName("node9"), n -> without(n, "a")));
  }

  @Test
  void aFinalizerIsHeldOnceAndNoneIsAddedToAnObjectBeingDeleted() {
    var resource = client.resources(NodeBGP.class).withName("node1");
    var held = LockedEdit.holdFinalizer(client, resource, "example.com/a");
    assertEquals(List.of("example.com/a"), held.getMetadata().getFinalizers());
    assertEquals(List.of("example.com/a"), resource.get().getMetadata().getFinalizers());
    String version = resource.get().getMetadata().getResourceVersion();
    LockedEdit.holdFinalizer(client, resource, "example.com/a");
    assertEquals(version, resource.get().getMetadata().getResourceVersion(), "held: no write");

    resource.delete(); // kept by example.com/a, now being deleted
    var deleting = LockedEdit.holdFinalizer(client, resource, "example.com/b");
    assertNotNull(deleting.getMetadata().getDeletionTimestamp());
    assertEquals(List.of("example.com/a"), resource.get().getMetadata().getFinalizers());
    assertNull(
        LockedEdit.holdFinalizer(
            client, client.resources(NodeBGP.class).withName("node9"), "example.com/a"));
  }
}
