package dev.sart.controller.ipam;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.controller.MockCluster;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.BlockRequestSpec;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sart's controller_address_pool_{service,pod}_test, controller_block_request_test and address
 * block rules re-expressed.
 */
class PoolReconcilerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private KubernetesMockServer server;
  private KubernetesClient client;
  private Informers informers;
  private Events events;
  private Metrics metrics;
  private PoolReconciler reconciler;

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    for (var node : List.of("sart-worker", "sart-worker2")) {
      client
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .create();
    }
    informers = new Informers(client);
    events = new Events(client);
    metrics = new Metrics();
    reconciler = new PoolReconciler(informers, events, metrics);
    informers.start();
    reconciler.start();
  }

  @AfterEach
  void tearDown() {
    reconciler.close();
    events.close();
    informers.close();
    client.close();
    server.destroy();
  }

  private void podPool(String name, String cidr, int blockSize, boolean autoAssign) {
    client
        .resource(
            new AddressPool(
                name, new AddressPoolSpec(cidr, AddressType.POD, blockSize, autoAssign)))
        .create();
  }

  private BlockRequest request(String pool, String node) {
    var request =
        client
            .resource(new BlockRequest(pool + "-" + node, new BlockRequestSpec(pool, node)))
            .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> {
              var r =
                  client
                      .resources(BlockRequest.class)
                      .withName(request.getMetadata().getName())
                      .get();
              return r.getStatus() != null
                  && (r.getStatus().block() != null || r.getStatus().error() != null);
            });
    return client.resources(BlockRequest.class).withName(request.getMetadata().getName()).get();
  }

  /** The agent deletes its request once the block is there. */
  private String blockFor(String pool, String node) {
    var answered = request(pool, node);
    client.resource(answered).delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                        .resources(BlockRequest.class)
                        .withName(answered.getMetadata().getName())
                        .get()
                    == null);
    return answered.getStatus().block();
  }

  private Map<String, String> blocks() {
    var result = new TreeMap<String, String>();
    client
        .resources(AddressBlock.class)
        .list()
        .getItems()
        .forEach(b -> result.put(b.getMetadata().getName(), b.getSpec().cidr()));
    return result;
  }

  @Test
  void aServicePoolIsOneBlockOfItsWholeCidr() {
    client
        .resource(
            new AddressPool(
                "default-lb-pool",
                new AddressPoolSpec("10.0.1.0/24", AddressType.SERVICE, null, true)))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> client.resources(AddressBlock.class).withName("default-lb-pool").get() != null);
    var block = client.resources(AddressBlock.class).withName("default-lb-pool").get();
    assertEquals("10.0.1.0/24", block.getSpec().cidr());
    assertEquals(AddressType.SERVICE, block.getSpec().type());
    assertEquals(Boolean.TRUE, block.getSpec().autoAssign());
    assertEquals("AddressPool", block.getMetadata().getOwnerReferences().getFirst().getKind());
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                    .resources(AddressPool.class)
                    .withName("default-lb-pool")
                    .get()
                    .getMetadata()
                    .getFinalizers()
                    .contains(Sart.ADDRESS_POOL_FINALIZER));
    client.resources(AddressPool.class).withName("default-lb-pool").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(AddressPool.class).withName("default-lb-pool").get() == null);
  }

  private dev.sart.crds.AddressPoolStatus status(String pool) {
    return client.resources(AddressPool.class).withName(pool).get().getStatus();
  }

  @Test
  void aPodPoolCountsItsBlocksInStatus() {
    podPool("counted", "10.2.0.0/24", 26, false);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    new dev.sart.crds.AddressPoolStatus("ipv4", "256", null, "4", 0L),
                    status("counted")));
    blockFor("counted", "sart-worker");
    blockFor("counted", "sart-worker2");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(2L, status("counted").blocksInUse()));
    client.resources(AddressBlock.class).withName("counted-0").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(1L, status("counted").blocksInUse()));

    // an IPv6 pool holds more than 2^63 addresses: the totals are exact decimal strings
    podPool("v6", "fd00:10::/56", 64, false);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    new dev.sart.crds.AddressPoolStatus(
                        "ipv6", "4722366482869645213696", null, "256", 0L),
                    status("v6")));
  }

  @Test
  void blockRequestsGetTheNextFreeBlockOfThePodPool() {
    podPool("default-pod-pool", "10.1.0.0/24", 29, true);
    assertEquals("default-pod-pool-0", blockFor("default-pod-pool", "sart-worker"));
    assertEquals("default-pod-pool-1", blockFor("default-pod-pool", "sart-worker2"));
    assertEquals("default-pod-pool-2", blockFor("default-pod-pool", "sart-worker"));
    assertEquals(
        Map.of(
            "default-pod-pool-0",
            "10.1.0.0/29",
            "default-pod-pool-1",
            "10.1.0.8/29",
            "default-pod-pool-2",
            "10.1.0.16/29"),
        blocks());
    var block = client.resources(AddressBlock.class).withName("default-pod-pool-1").get();
    assertEquals("sart-worker2", block.getSpec().nodeRef());
    assertEquals(
        Map.of(
            Sart.ADDRESS_POOL_LABEL,
            "default-pod-pool",
            Sart.ADDRESS_BLOCK_NODE_LABEL,
            "sart-worker2"),
        block.getMetadata().getLabels());
    assertEquals(1L, block.getStatus().index());
    assertEquals("default-pod-pool", block.getMetadata().getOwnerReferences().getFirst().getName());

    // a freed block is the next one handed out (blocks are big; their addresses are not reused at
    // once by the agent)
    client.resources(AddressBlock.class).withName("default-pod-pool-1").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> !blocks().containsKey("default-pod-pool-1"));
    assertEquals("default-pod-pool-1", blockFor("default-pod-pool", "sart-worker"));
  }

  @Test
  void aRetriedRequestDoesNotGetASecondBlock() {
    podPool("default-pod-pool", "10.1.0.0/24", 29, true);
    var answered = request("default-pod-pool", "sart-worker");
    assertEquals("default-pod-pool-0", answered.getStatus().block());
    // the answer is lost (as if the status write had failed): the request is handled again
    client
        .resources(BlockRequest.class)
        .withName(answered.getMetadata().getName())
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/status\"}]");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> {
              var r =
                  client
                      .resources(BlockRequest.class)
                      .withName(answered.getMetadata().getName())
                      .get();
              return r.getStatus() != null && r.getStatus().block() != null;
            });
    assertEquals(
        "default-pod-pool-0",
        client
            .resources(BlockRequest.class)
            .withName(answered.getMetadata().getName())
            .get()
            .getStatus()
            .block());
    assertEquals(Map.of("default-pod-pool-0", "10.1.0.0/29"), blocks());
  }

  @Test
  void badRequestsAreAnsweredWithAnError() {
    client
        .resource(
            new AddressPool(
                "lb", new AddressPoolSpec("10.0.1.0/24", AddressType.SERVICE, null, false)))
        .create();
    assertEquals(
        "AddressPool lb is not a pod pool", request("lb", "sart-worker").getStatus().error());
    assertEquals("no AddressPool nope", request("nope", "sart-worker").getStatus().error());
    podPool("non-default-pod-pool", "10.10.0.0/29", 32, false);
    for (int i = 0; i < 8; i++) {
      assertEquals("non-default-pod-pool-" + i, blockFor("non-default-pod-pool", "sart-worker"));
    }
    assertEquals("10.10.0.7/32", blocks().get("non-default-pod-pool-7"));
    assertEquals(
        "AddressPool non-default-pod-pool has no free block (8 in use)",
        request("non-default-pod-pool", "sart-worker2").getStatus().error());
  }

  @Test
  void poolDeletionWaitsForItsBlocksAndBlocksOfGoneNodesAreCollected() {
    podPool("default-pod-pool", "10.1.0.0/24", 29, true);
    blockFor("default-pod-pool", "sart-worker");
    blockFor("default-pod-pool", "sart-worker2");
    // the agent's finalizer is on its blocks
    LockedEdit.edit(
        client,
        client.resources(AddressBlock.class).withName("default-pod-pool-1"),
        b -> {
          b.getMetadata().setFinalizers(List.of(Sart.ADDRESS_BLOCK_AGENT_FINALIZER));
          return b;
        });
    client.resources(AddressPool.class).withName("default-pod-pool").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client.v1().events().inAnyNamespace().list().getItems().stream()
                    .anyMatch(e -> "PoolInUse".equals(e.getReason())));
    assertNotNull(client.resources(AddressPool.class).withName("default-pod-pool").get());

    client.nodes().withName("sart-worker2").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> !blocks().containsKey("default-pod-pool-1"));
    client.resources(AddressBlock.class).withName("default-pod-pool-0").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> client.resources(AddressPool.class).withName("default-pod-pool").get() == null);
    assertNull(client.resources(AddressBlock.class).withName("default-pod-pool-0").get());
  }

  @Test
  void blockMetricsCountBlocksNotBits() {
    podPool("default-pod-pool", "10.1.0.0/24", 29, true);
    blockFor("default-pod-pool", "sart-worker");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                metrics
                    .scrape()
                    .contains(
                        "sart_controller_allocated_blocks{pool=\"default-pod-pool\",type=\"pod\"} 1.0"));
    var text = metrics.scrape();
    assertEquals(
        true,
        text.contains("sart_controller_max_blocks{pool=\"default-pod-pool\",type=\"pod\"} 32.0"),
        text);
  }

  /**
   * A pool deleted before the controller put its finalizer on it, while the controller's cache
   * still shows it (a create and a delete in quick succession): nothing is made for it, not even
   * its AddressBlock (which only the API server's garbage collector would remove, and the mock
   * server has none).
   */
  @Test
  void aPoolDeletedBeforeTheControllerHeldItGetsNoBlock() {
    reconciler.close();
    var pass = new PoolReconciler(informers, events, metrics);
    try {
      client
          .resource(
              new AddressPool(
                  "gone", new AddressPoolSpec("198.51.100.0/24", AddressType.SERVICE, null, true)))
          .create();
      await().atMost(WAIT).until(() -> informers.get(AddressPool.class, "gone") != null);
      // the cache keeps what it has: the deletion below never reaches it
      informers.of(AddressPool.class).stop();
      client.resources(AddressPool.class).withName("gone").delete();
      assertNull(client.resources(AddressPool.class).withName("gone").get());
      assertNotNull(informers.get(AddressPool.class, "gone"));

      assertNull(pass.reconcilePool("gone"));
      assertNull(client.resources(AddressBlock.class).withName("gone").get());
      assertNull(client.resources(AddressPool.class).withName("gone").get());
    } finally {
      pass.close();
    }
  }
}
