package dev.sart.agent.kube;

import static dev.sart.crds.testing.KubeObjects.annotated;
import static dev.sart.crds.testing.KubeObjects.namespace;
import static dev.sart.crds.testing.KubeObjects.pod;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.ipam.Allocation;
import dev.sart.agent.ipam.Attachment;
import dev.sart.agent.ipam.IpamException;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pod IPAM over AddressBlocks against fabric8's mock API server (CRUD mode); the test plays sart's
 * controller, answering each BlockRequest with an AddressBlock (sart's agent_cni_server and
 * agent_address_block tests).
 */
@EnableMockApi
class KubeIpamTest {
  static KubernetesClient client;
  private static final String NODE = "node1";
  private final AtomicInteger index = new AtomicInteger();
  private KubeIpam ipam;

  // createOr(update): under load fabric8 may retry a POST the mock server already took (409)
  @BeforeEach
  void setUp() {
    client
        .resource(
            new AddressPool(
                "default-pod-pool", new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, true)))
        .createOr(NonDeletingOperation::update);
    BGPPeer p =
        new BGPPeer(
            "node1-65000-192.0.2.1",
            new BGPPeerSpec(
                65000L,
                "192.0.2.1",
                null,
                null,
                null,
                NODE,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    p.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
    client.resource(p).createOr(NonDeletingOperation::update);
    ipam =
        new KubeIpam(
            new BlockSource(client, NODE, Duration.ofSeconds(20)), new PoolSelector(client));
  }

  @AfterEach
  void tearDown() {
    MockApiCleanup.deleteIpamObjects(client);
    client.resources(BGPPeer.class).delete();
    client.namespaces().delete();
  }

  /** sart's controller: the next /29 of the pool for the node that asked. */
  private String answer(String pool) {
    await("BlockRequest")
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> client.resources(BlockRequest.class).withName(pool + "-" + NODE).get() != null);
    int i = index.getAndIncrement();
    String name = pool + "-" + i;
    AddressBlock b =
        new AddressBlock(
            name,
            new AddressBlockSpec("10.1.0." + (i * 8) + "/29", AddressType.POD, pool, NODE, null));
    b.getMetadata()
        .setLabels(Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, NODE, Sart.ADDRESS_POOL_LABEL, pool));
    client.resource(b).create();
    return name;
  }

  private Allocation allocateAnswering(String pool, Attachment a) throws Exception {
    CompletableFuture<Allocation> f =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ipam.allocate(pool, a);
              } catch (IpamException e) {
                throw new RuntimeException(e);
              }
            });
    answer(pool);
    return f.get();
  }

  @Test
  void aNodeWithoutABlockRequestsOneAndAnnouncesIt() throws Exception {
    Allocation a = allocateAnswering("default-pod-pool", new Attachment("c1", "eth0"));
    assertTrue(IpPrefix.parse("10.1.0.0/29").contains(a.addresses().getFirst()), a::toString);
    assertNotEquals("10.1.0.0", Ip.format(a.addresses().getFirst()), "never the network address");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                client.resources(BlockRequest.class).withName("default-pod-pool-" + NODE).get()
                    == null);
    BGPAdvertisement adv =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .withName("default-pod-pool-0")
            .get();
    assertEquals("10.1.0.0/29", adv.getSpec().cidr());
    assertEquals(AddressType.POD, adv.getSpec().type());
    assertEquals("default-pod-pool", adv.getMetadata().getLabels().get(Sart.ADDRESS_POOL_LABEL));
    assertEquals("AddressBlock", adv.getMetadata().getOwnerReferences().getFirst().getKind());
    assertEquals(
        Map.of("node1-65000-192.0.2.1", AdvertiseStatus.NotAdvertised), adv.getStatus().peers());
  }

  @Test
  void aReleasedAddressIsNotGivenAgainAtOnce() throws Exception {
    Allocation a = allocateAnswering("default-pod-pool", new Attachment("c1", "eth0"));
    ipam.allocate("default-pod-pool", new Attachment("c2", "eth0"));
    ipam.release(new Attachment("c1", "eth0"));
    Allocation c = ipam.allocate("default-pod-pool", new Attachment("c3", "eth0"));
    assertNotEquals(a.addresses(), c.addresses());
  }

  @Test
  void aFullBlockLeadsToASecondOne() throws Exception {
    allocateAnswering("default-pod-pool", new Attachment("c0", "eth0"));
    for (int i = 1; i < 6; i++) {
      ipam.allocate("default-pod-pool", new Attachment("c" + i, "eth0"));
    }
    // a /29 has six usable addresses: the seventh pod needs another block
    Allocation seventh = allocateAnswering("default-pod-pool", new Attachment("c6", "eth0"));
    assertTrue(
        IpPrefix.parse("10.1.0.8/29").contains(seventh.addresses().getFirst()), seventh::toString);
    assertEquals(
        2,
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .list()
            .getItems()
            .size(),
        "one advertisement per block");
  }

  @Test
  void aBlockWithNoPodLeftIsReleased() throws Exception {
    allocateAnswering("default-pod-pool", new Attachment("c1", "eth0"));
    ipam.release(new Attachment("c1", "eth0"));
    assertNull(client.resources(AddressBlock.class).withName("default-pod-pool-0").get());
    assertNull(
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .withName("default-pod-pool-0")
            .get());
    assertTrue(ipam.allocations().isEmpty());
  }

  @Test
  void noAnswerIsAnErrorTheAddCanRetry() {
    KubeIpam impatient =
        new KubeIpam(
            new BlockSource(client, NODE, Duration.ofMillis(500)), new PoolSelector(client));
    IpamException e =
        assertThrows(
            IpamException.class,
            () -> impatient.allocate("default-pod-pool", new Attachment("c1", "eth0")));
    assertTrue(e.getMessage().contains("requested"), e.getMessage());
  }

  @Test
  void thePoolComesFromThePodThenItsNamespaceThenAutoAssign() {
    client
        .resource(
            new AddressPool(
                "other", new AddressPoolSpec("10.10.0.0/24", AddressType.POD, 29, false)))
        .create();
    client
        .resource(
            annotated(namespace("annotated"), Map.of(Sart.ADDRESS_POOL_ANNOTATION, "ns-pool")))
        .create();
    client.resource(namespace("plain")).create();
    client
        .resource(
            annotated(pod("annotated", "p1", null), Map.of(Sart.ADDRESS_POOL_ANNOTATION, "other")))
        .create();
    client.resource(pod("annotated", "p2", null)).create();
    client.resource(pod("plain", "p3", null)).create();
    PoolSelector s = new PoolSelector(client);
    assertEquals("other", s.pool(args("annotated", "p1"), null), "the pod's annotation wins");
    assertEquals("ns-pool", s.pool(args("annotated", "p2"), null), "then the namespace's");
    assertEquals(
        "default-pod-pool", s.pool(args("plain", "p3"), null), "then the auto-assign pod pool");
    assertEquals("default-pod-pool", ipam.defaultPool());
    client.resources(AddressPool.class).withName("default-pod-pool").delete();
    assertNull(s.pool(args("plain", "p3"), null), "no pool at all: the ADD is retried later");
  }

  private static Map<String, String> args(String ns, String pod) {
    return Map.of(PoolSelector.POD_NAMESPACE, ns, PoolSelector.POD_NAME, pod);
  }
}
