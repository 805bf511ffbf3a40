package dev.sart.testbed.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.CrdManifests;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@link EnableMockApi}: static fields share one server for the class, instance fields get a fresh
 * one per test, {@code crds = true} applies sart's CRDs.
 */
@EnableMockApi(crds = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EnableMockApiTest {
  static KubernetesClient shared;
  static KubernetesMockServer sharedServer;
  KubernetesClient own;
  KubernetesMockServer ownServer;

  private static void write(KubernetesClient client, String name) {
    client
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace("t")
                .withName(name)
                .endMetadata()
                .build())
        .create();
  }

  private static boolean has(KubernetesClient client, String name) {
    return client.configMaps().inNamespace("t").withName(name).get() != null;
  }

  @Test
  @Order(1)
  void aTestWrites() {
    assertNotEquals(sharedServer.getPort(), ownServer.getPort());
    write(shared, "kept");
    write(own, "dropped");
    assertEquals(
        CrdManifests.yaml().size(),
        own.apiextensions().v1().customResourceDefinitions().list().getItems().size());
  }

  @Test
  @Order(2)
  void theNextSeesTheClassServerKeptAndItsOwnServerFresh() {
    assertTrue(has(shared, "kept"), "one server for the class");
    assertFalse(has(own, "dropped"), "a fresh server for each test");
  }
}
