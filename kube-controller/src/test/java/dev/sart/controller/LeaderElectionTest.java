package dev.sart.controller;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two controller replicas on one Lease: one reconciles; when it goes, the other takes over without
 * duplicates.
 */
class LeaderElectionTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private KubernetesMockServer server;
  private KubernetesClient clientA;
  private KubernetesClient clientB;
  private SartController a;
  private SartController b;

  private SartController replica(KubernetesClient client, String name) throws Exception {
    var config =
        ControllerConfig.defaults(name)
            .withLease(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(300));
    var controller = new SartController(client, config, new Metrics());
    controller.start();
    return controller;
  }

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    clientA = server.createClient();
    clientB = server.createClient();
    pool(clientA, "default-lb-pool", "10.0.1.0/24", true);
    a = replica(clientA, "replica-a");
    b = replica(clientB, "replica-b");
  }

  @AfterEach
  void tearDown() {
    a.close();
    b.close();
    clientA.close();
    clientB.close();
    server.destroy();
  }

  @Test
  void oneReplicaLeadsAndTheOtherTakesOver() {
    await().ignoreExceptions().atMost(WAIT).until(() -> a.leading() || b.leading());
    assertFalse(a.leading() && b.leading(), "never two leaders");
    var leader = a.leading() ? a : b;
    var standby = leader == a ? b : a;
    assertTrue(standby.ready(), "a stand-by is ready");
    var lease = clientA.leases().inNamespace("kube-system").withName("sart-controller").get();
    assertEquals(leader == a ? "replica-a" : "replica-b", lease.getSpec().getHolderIdentity());

    for (int i = 0; i < 10; i++) {
      clientA.resource(lbService("test", "s" + i, Map.of()).build()).create();
    }
    await().ignoreExceptions().atMost(WAIT).until(() -> allHaveAnAddress(10));

    leader.close();
    await().ignoreExceptions().atMost(WAIT).until(standby::leading);
    for (int i = 10; i < 20; i++) {
      clientA.resource(lbService("test", "s" + i, Map.of()).build()).create();
    }
    await().ignoreExceptions().atMost(WAIT).until(() -> allHaveAnAddress(20));
    var seen = new HashSet<String>();
    for (int i = 0; i < 20; i++) {
      assertTrue(seen.add(ingress(clientA, "test", "s" + i).getFirst()), "no duplicate address");
    }
  }

  private boolean allHaveAnAddress(int n) {
    for (int i = 0; i < n; i++) {
      if (ingress(clientA, "test", "s" + i).isEmpty()) {
        return false;
      }
    }
    return true;
  }
}
