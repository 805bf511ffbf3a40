package dev.sart.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.cluster.ApiServer;
import dev.sart.testbed.cluster.HostRelay;
import dev.sart.testbed.cluster.Launch;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook certificate without cert-manager, end to end from the image: {@code deploy/lb}'s
 * certgen Job container runs (as {@link Container} runs it: user 65532, read-only root, no
 * capabilities) against the cluster test bed's mock API server holding the rendered webhook
 * configurations; it writes the Secret and every webhook's caBundle, and a second run (an upgrade)
 * keeps them. Then the controller's container, with that Secret mounted as the kubelet would,
 * serves its webhooks: an AdmissionReview posted to the Service's name is answered over TLS
 * verified against the caBundle, as the API server calls it.
 */
class CertgenJobTest {
  private static final String NS = "kube-system";
  private static final String SERVICE = "sart-webhook-service." + NS + ".svc";
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final Testbed testbed = new Testbed();
  @TempDir Path work;

  @Test
  void theJobsSecretAndCaBundleAreWhatTheControllerServesAndTheApiServerTrusts() throws Exception {
    ImageRoot image = ImageRoot.unpack(work);
    List<JsonNode> docs = KustomizeTest.render("lb");
    Node cp = testbed.topology().node("cp");
    try (ApiServer api = ApiServer.startMock(work.resolve("api"));
        HostRelay relay = HostRelay.open(cp, api.address().getPort(), api.address())) {
      api.applyCrds(Launch.crdManifests());
      KubernetesClient client = api.client();
      for (JsonNode d : docs) {
        if (d.path("kind").asText().endsWith("WebhookConfiguration")) {
          client
              .resource((HasMetadata) Serialization.unmarshal(JSON.writeValueAsString(d)))
              .create();
        }
      }
      Path kube = Files.createDirectories(work.resolve("kube"));
      api.kubeconfigThroughRelay(kube.resolve("kubeconfig"));

      JsonNode job = Manifests.one(docs, "Job", "sart-certgen");
      Shell.Result first = certgen(image, job, kube, cp, "first");
      assertEquals(0, first.exitCode(), first.stdout() + first.stderr());
      assertTrue(first.stdout().contains("created Secret kube-system/sart-webhook-server-cert"));
      Secret secret = client.secrets().inNamespace(NS).withName("sart-webhook-server-cert").get();
      String ca = secret.getData().get("ca.crt");
      assertEquals(List.of(ca, ca, ca, ca, ca, ca), caBundles(client));

      // an upgrade runs the Job again: the certificate the replicas serve stays
      Shell.Result again = certgen(image, job, kube, cp, "again");
      assertEquals(0, again.exitCode(), again.stdout() + again.stderr());
      assertTrue(again.stdout().contains("kept Secret"), again.stdout());
      assertEquals(
          secret.getData(),
          client.secrets().inNamespace(NS).withName("sart-webhook-server-cert").get().getData());

      // the controller, with the Secret as the kubelet mounts it
      Path certDir = Files.createDirectories(work.resolve("secret"));
      for (Map.Entry<String, String> e : secret.getData().entrySet()) {
        Files.write(certDir.resolve(e.getKey()), Base64.getDecoder().decode(e.getValue()));
      }
      JsonNode deployment = Manifests.one(docs, "Deployment", "sart-controller");
      ManagedProcess controller =
          cp.spawn(
              "sartd-controller",
              Container.of(image, deployment, "controller")
                  .field("metadata.namespace", NS)
                  .env("HOSTNAME", "sart-controller-0")
                  .env("KUBECONFIG", "/var/run/sart-test/kubeconfig")
                  .volume("cert", certDir)
                  .mount(kube, "/var/run/sart-test")
                  .argv(work.resolve("run")));
      // the API server's side: the CA from the caBundle, the Service's name
      Path caFile = work.resolve("ca-bundle.pem");
      Files.write(caFile, Base64.getDecoder().decode(caBundles(client).getFirst()));
      Files.writeString(work.resolve("review.json"), review());
      List<String> curl =
          List.of(
              "curl",
              "-sS",
              "--fail",
              "--resolve",
              SERVICE + ":8443:127.0.0.1",
              "-H",
              "Content-Type: application/json",
              "--data-binary",
              "@" + work.resolve("review.json"),
              "https://" + SERVICE + ":8443/validate-sart-terassyi-net-v1alpha2-addresspool");
      List<String> verified = new ArrayList<>(curl);
      verified.addAll(1, List.of("--cacert", caFile.toString()));
      Shell.Result[] answer = new Shell.Result[1];
      await("the controller's webhook over TLS")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                assertTrue(controller.isAlive(), () -> controller.tail(40));
                answer[0] = Shell.exec(cp.inNetns(verified));
                return answer[0].ok();
              });
      JsonNode response = JSON.readTree(answer[0].stdout()).path("response");
      assertEquals("705ab4f5-6393-11e8-b7cc-42010a800002", response.path("uid").asText());
      assertTrue(response.path("allowed").asBoolean(), answer[0].stdout());
      // without that CA the same call is refused: the chain is what is checked
      Shell.Result untrusted = Shell.exec(cp.inNetns(curl));
      assertNotEquals(0, untrusted.exitCode(), untrusted.stdout());
      assertTrue(untrusted.stderr().contains("certificate"), untrusted.stderr());

      // the controller from the image at work (lb mode): a Service gets an address from a pool,
      // and what its Service's port exports (a ServiceMonitor's scrape) holds the dashboard's
      client
          .resource(
              new dev.sart.crds.AddressPool(
                  "lb",
                  new dev.sart.crds.AddressPoolSpec(
                      "198.51.100.0/24", dev.sart.crds.AddressType.SERVICE, null, true)))
          .create();
      client
          .resource(
              new io.fabric8.kubernetes.api.model.ServiceBuilder()
                  .withNewMetadata()
                  .withNamespace("default")
                  .withName("web")
                  .endMetadata()
                  .withNewSpec()
                  .withType("LoadBalancer")
                  .withSelector(Map.of("app", "web"))
                  .addNewPort()
                  .withPort(80)
                  .withProtocol("TCP")
                  .endPort()
                  .endSpec()
                  .build())
          .create();
      await("the Service's address")
          .atMost(Duration.ofSeconds(120))
          .until(
              () -> {
                var st = client.services().inNamespace("default").withName("web").get().getStatus();
                return st != null
                    && st.getLoadBalancer() != null
                    && st.getLoadBalancer().getIngress() != null
                    && !st.getLoadBalancer().getIngress().isEmpty();
              });
      Set<String> exported = Dashboard.scrape(cp, "http://127.0.0.1:8080/metrics");
      System.out.println("sartd controller exports: " + exported);
      Dashboard.checkExported(Dashboard.CONTROLLER, exported, "sartd controller");
      controller.stop();
    }
  }

  private static Shell.Result certgen(
      ImageRoot image, JsonNode job, Path kube, Node cp, String name) {
    return Shell.exec(
        cp.inNetns(
            Container.of(image, job, "certgen")
                .field("metadata.namespace", NS)
                .env("KUBECONFIG", "/var/run/sart-test/kubeconfig")
                .mount(kube, "/var/run/sart-test")
                .argv(image.root().getParent().resolve("run-" + name))));
  }

  private static List<String> caBundles(KubernetesClient client) {
    List<String> all = new ArrayList<>();
    var admission = client.admissionRegistration().v1();
    admission
        .validatingWebhookConfigurations()
        .withName("sart-validating")
        .get()
        .getWebhooks()
        .forEach(w -> all.add(w.getClientConfig().getCaBundle()));
    admission
        .mutatingWebhookConfigurations()
        .withName("sart-mutating")
        .get()
        .getWebhooks()
        .forEach(w -> all.add(w.getClientConfig().getCaBundle()));
    return all;
  }

  private static String review() {
    return """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
          "kind":{"group":"sart.terassyi.net","version":"v1alpha2","kind":"AddressPool"},
          "resource":{"group":"sart.terassyi.net","version":"v1alpha2","resource":"addresspools"},
          "operation":"CREATE","userInfo":{"username":"admin"},
          "object":{"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressPool",
            "metadata":{"name":"lb"},
            "spec":{"cidr":"198.51.100.0/24","type":"service","autoAssign":true}},
          "oldObject":null,"dryRun":false}}
        """;
  }
}
