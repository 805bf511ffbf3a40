package dev.sart.sartd;

import static org.awaitility.Awaitility.await;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.mockapi.MockApi;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The cluster of {@code sartd node}'s AOT training ({@code NodeTraining}, run at build time with
 * sartd's test class path): fabric8's mock API server with sart's CRDs and what the controller
 * would have made for node {@code training} — its NodeBGP, a BGPPeer and a BGPAdvertisement for the
 * peer. The peer is {@link #PEER_ADDRESS}, a loopback address where nobody listens on port 179: the
 * speaker's connection is refused on the machine itself, and no packet leaves it (a documentation
 * address would go out by the default route — on a machine numbered in 192.0.2.0/24 to its real
 * gateway). Prints {@code KUBECONFIG path}, waits until the agent has reported the peer's state,
 * deletes the advertisement (a withdrawal), waits two of the agent's passes, prints {@code TRAINED}
 * and runs until its standard input closes.
 *
 * <p>Arguments: a directory for its files, the speaker's API address ({@code host:port}).
 */
public final class TrainingCluster {
  static final String NODE = "training";
  static final String PEER_ADDRESS = "127.0.0.2";
  static final String PEER = "training-65000-" + PEER_ADDRESS;

  private TrainingCluster() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    String speaker = args[1];
    Logger.getLogger("").setLevel(Level.WARNING);
    var server = MockApi.start();
    Path kubeconfig = dir.resolve("kubeconfig");
    MockKubeconfig.write(
        kubeconfig, "https://127.0.0.1:" + server.getPort() + "/", MockApi.caCertData(server));
    try (KubernetesClient client = server.createClient()) {
      MockApi.applySartCrds(client);
      // what the controller would have made for the node
      client.resource(ControllerObjects.nodeBgp(NODE, 65001, "127.0.0.1", speaker)).create();
      client.resource(ControllerObjects.peer(NODE, 65000, PEER_ADDRESS, null, null, null)).create();
      ControllerObjects.advert(
          client,
          "default",
          "lb-1",
          "198.51.100.10/32",
          Map.of(PEER, AdvertiseStatus.NotAdvertised));
      System.out.println("KUBECONFIG " + kubeconfig);
      System.out.flush();
      await("the agent reports the BGPPeer's state")
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                BGPPeer p = client.resources(BGPPeer.class).withName(PEER).get();
                return p.getStatus() != null
                    && p.getStatus().conditions() != null
                    && !p.getStatus().conditions().isEmpty();
              });
      client.resources(BGPAdvertisement.class).inNamespace("default").withName("lb-1").delete();
      // the agent withdraws the path on its watch, and runs two full passes (--resync 1)
      Thread.sleep(2500);
      System.out.println("TRAINED");
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the training JVM closes our stdin or exits
      }
    }
    server.destroy();
    System.exit(0);
  }
}
