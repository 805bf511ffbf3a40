package dev.sart.controller;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.mockapi.MockApi;
import dev.sart.testbed.mockapi.WriteLoad;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A controller that stops (its informers closed, as EgressReconcilerTest's {@code bed.stop()})
 * while watch events are on their way to it does not stall the tests' API server. With fabric8's
 * own CRUD dispatcher, closing a watch with an event queued blocks the server's event loop until a
 * 30 s write timeout ("vert.x-eventloop-thread-0 has been blocked" in {@code
 * WatchEventsListener.onFailure}): nobody gets an answer meanwhile; this test then fails in its
 * first rounds.
 */
class MockApiWatchCloseTest {
  private static final String NS = "w";
  private final KubernetesMockServer server = MockApi.start();

  @AfterEach
  void tearDown() {
    server.destroy();
  }

  @Test
  void controllersThatStopWhileEventsFlowStallNobody() throws Exception {
    try (var writer = server.createClient();
        var load = WriteLoad.start(writer, NS)) {
      for (int round = 0; round < 15; round++) {
        var controller = server.createClient();
        for (int i = 0; i < 3; i++) {
          controller.configMaps().inNamespace(NS).inform();
        }
        // events flow to the controller's three watches
        load.awaitAnswers("writes while the controller of round " + round + " runs", 30, WAIT);
        controller.close(); // its informers and their watches end with events queued
        // the server goes on (with fabric8's own dispatcher a round stalls for 30 s)
        load.awaitAnswers("answers after the controller of round " + round + " stopped", 20, WAIT);
      }
      assertTrue(load.slowest().compareTo(WAIT) < 0, "slowest write " + load.slowest());
    }
  }

  private static final Duration WAIT = Duration.ofSeconds(10);
}
