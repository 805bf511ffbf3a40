package dev.sart.controller.bgp;

import static dev.sart.controller.MockCluster.node;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.crds.AsnSelector;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.ClusterBGPCondition;
import dev.sart.crds.ClusterBGPSpec;
import dev.sart.crds.ClusterBGPStatus;
import dev.sart.crds.RouterIdSelector;
import dev.sart.crds.SpeakerConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A ClusterBGP whose {@code nodeSelector} would select more nodes under sart's rule (any one label
 * matches) than under Kubernetes' (every label matches, ours) carries a warning condition naming
 * them, as a sart user reading {@code kubectl get clusterbgp -o yaml} would see it.
 */
class SartSelectorWarningTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private ClusterBgpOnMock mock;
  private KubernetesClient client;

  @BeforeEach
  void setUp() throws Exception {
    mock =
        new ClusterBgpOnMock(
            c -> {
              node(c, "n1", "192.0.2.11", Map.of("bgp", "a", "rack", "r1"));
              node(c, "n2", "192.0.2.12", Map.of("bgp", "a", "rack", "r2"));
              node(c, "n3", "192.0.2.13", Map.of("bgp", "b", "rack", "r1"));
              node(c, "n4", "192.0.2.14", Map.of("bgp", "b", "rack", "r2"));
            });
    client = mock.client;
  }

  @AfterEach
  void tearDown() {
    mock.close();
  }

  private void cluster(String name, Map<String, String> selector) {
    client
        .resource(
            new ClusterBGP(
                name,
                new ClusterBGPSpec(
                    selector,
                    new AsnSelector(AsnSelector.From.ASN, 65000L),
                    new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                    new SpeakerConfig("127.0.0.1:5000", null, null),
                    null)))
        .create();
  }

  private ClusterBGPStatus status(String name) {
    return client.resources(ClusterBGP.class).withName(name).get().getStatus();
  }

  @Test
  void aSelectorThatSartWouldReadDifferentlyIsWarnedAbout() {
    cluster("rack1-a", Map.of("bgp", "a", "rack", "r1"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var status = status("rack1-a");
              assertEquals(List.of("n1"), status.desiredNodes(), "every label must match");
              var condition = status.conditions().getFirst();
              assertEquals(ClusterBGPStatus.SART_SELECTOR_DIFFERS, condition.type());
              assertEquals("True", condition.status());
              assertEquals(
                  "under sart's rule (a node matches when any one label of nodeSelector matches)"
                      + " this ClusterBGP would also select n2, n3; here a node must match every"
                      + " label (Kubernetes' rule)",
                  condition.message());
            });

    // one label: both rules agree, no condition
    cluster("all-a", Map.of("bgp", "a"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertEquals(List.of("n1", "n2"), status("all-a").desiredNodes());
              assertNull(status("all-a").conditions());
            });

    // the nodes are relabelled so that both rules agree: the condition goes
    for (var n : List.of("n2", "n3")) {
      client
          .nodes()
          .withName(n)
          .edit(
              node -> {
                var labels = new HashMap<>(node.getMetadata().getLabels());
                labels.put("bgp", "c");
                labels.put("rack", "r9");
                node.getMetadata().setLabels(labels);
                return node;
              });
    }
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertNull(status("rack1-a").conditions()));
  }

  @Test
  void theWarningNamesAtMostTenNodes() {
    var names = new TreeSet<String>();
    IntStream.range(0, 12).forEach(i -> names.add(String.format("node-%02d", i)));
    ClusterBGPCondition c = NodePlan.sartSelectorWarning(names).getFirst();
    assertEquals(
        "under sart's rule (a node matches when any one label of nodeSelector matches) this"
            + " ClusterBGP would also select node-00, node-01, node-02, node-03, node-04, node-05,"
            + " node-06, node-07, node-08, node-09 and 2 more; here a node must match every label"
            + " (Kubernetes' rule)",
        c.message());
    assertNull(NodePlan.sartSelectorWarning(new TreeSet<>()));
  }
}
