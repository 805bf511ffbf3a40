package dev.sart.controller.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.crds.Egress;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * coil's Egress fields as a user writes them in YAML reach the Deployment and the Service the
 * controller makes: {@code strategy}, {@code template} (labels, annotations, pod spec merged with
 * the controller's container), {@code sessionAffinity}/{@code sessionAffinityConfig}, {@code
 * fouSourcePortAuto} with {@code tunnel: fou}.
 */
class EgressCoilFieldsTest {
  private EgressBed bed;
  private KubernetesClient client;

  @BeforeEach
  void setUp() throws Exception {
    bed = new EgressBed().start();
    client = bed.client;
  }

  @AfterEach
  void tearDown() {
    bed.close();
  }

  private void apply(String yaml) {
    client
        .resource(
            client
                .resources(Egress.class)
                .load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
                .item())
        .create();
  }

  @Test
  void strategyTemplateAndSessionAffinityConfigReachTheDeploymentAndTheService() {
    apply(
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: Egress
        metadata: {name: nat, namespace: internet-egress}
        spec:
          destinations: [0.0.0.0/0]
          replicas: 3
          strategy:
            type: RollingUpdate
            rollingUpdate: {maxUnavailable: 0, maxSurge: 1}
          template:
            metadata:
              labels: {team: net}
              annotations: {example.com/audit: "yes"}
            spec:
              nodeSelector: {egress: "true"}
              tolerations: [{key: egress, operator: Exists, effect: NoSchedule}]
              containers:
                - name: egress
                  resources: {limits: {memory: 200Mi}}
                  env: [{name: JAVA_TOOL_OPTIONS, value: -Xmx100m}]
                - name: sidecar
                  image: registry.example/log:1
          sessionAffinityConfig:
            clientIP: {timeoutSeconds: 43200}
        """);
    var d = bed.deployment("nat");
    assertEquals("RollingUpdate", d.getSpec().getStrategy().getType());
    assertEquals(0, d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal());
    assertEquals(1, d.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getIntVal());
    var meta = d.getSpec().getTemplate().getMetadata();
    assertEquals("net", meta.getLabels().get("team"));
    assertEquals("nat", meta.getLabels().get(Sart.EGRESS_NAME_LABEL));
    assertEquals(Map.of("example.com/audit", "yes"), meta.getAnnotations());
    var pod = d.getSpec().getTemplate().getSpec();
    assertEquals(Map.of("egress", "true"), pod.getNodeSelector());
    assertEquals("egress", pod.getTolerations().getFirst().getKey());
    assertEquals(
        List.of("egress", "sidecar"),
        pod.getContainers().stream().map(Container::getName).toList());
    Container egress = pod.getContainers().getFirst();
    assertEquals("registry.example/sart:1", egress.getImage());
    assertEquals(new Quantity("200Mi"), egress.getResources().getLimits().get("memory"));
    assertEquals(
        List.of("POD_NAME", "POD_NAMESPACE", "POD_IP", "JAVA_TOOL_OPTIONS"),
        egress.getEnv().stream().map(EnvVar::getName).toList(),
        "the controller's downward-API variables, then the user's");
    assertEquals(List.of("NET_ADMIN"), egress.getSecurityContext().getCapabilities().getAdd());
    assertEquals("registry.example/log:1", pod.getContainers().get(1).getImage());

    var s = bed.service("nat");
    assertEquals("ClientIP", s.getSpec().getSessionAffinity());
    assertEquals(43200, s.getSpec().getSessionAffinityConfig().getClientIP().getTimeoutSeconds());
  }

  @Test
  void sessionAffinityNoneAndFouWithAutomaticSourcePorts() {
    apply(
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: Egress
        metadata: {name: fou, namespace: internet-egress}
        spec:
          destinations: [2001:db8::/32]
          tunnel: fou
          fouSourcePortAuto: true
          sessionAffinity: None
          sessionAffinityConfig:
            clientIP: {timeoutSeconds: 60}
        """);
    var egress = bed.deployment("fou").getSpec().getTemplate().getSpec().getContainers().getFirst();
    assertEquals(
        List.of(
            "egress",
            "--egress",
            "fou",
            "--tunnel",
            "fou",
            "--port",
            "5555",
            "--fou-source-port-auto"),
        egress.getArgs());
    assertEquals(5555, egress.getPorts().getFirst().getContainerPort());
    var s = bed.service("fou");
    assertEquals("None", s.getSpec().getSessionAffinity());
    assertNull(s.getSpec().getSessionAffinityConfig(), "no ClientIP config without affinity");
    assertEquals("UDP", s.getSpec().getPorts().getFirst().getProtocol());
    assertEquals(5555, s.getSpec().getPorts().getFirst().getPort());
    assertEquals("fou", s.getSpec().getPorts().getFirst().getName());
  }
}
