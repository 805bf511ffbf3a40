package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.BenchOutput.load;
import static dev.sart.testbed.cluster.BenchOutput.say;
import static dev.sart.testbed.cluster.BenchOutput.secs;
import static dev.sart.testbed.cluster.BenchOutput.step;
import static org.awaitility.Awaitility.await;

import dev.sart.crds.BGPAdvertisement;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * ClusterBench's first phase: {@code --present} LoadBalancer Services from an IPv6 pool no BGPPeer
 * carries (they load the API server, the controller and every informer, not the speakers), created
 * 4 at a time; it ends in a steady state: every Service addressed, every advertisement made, every
 * EndpointSlice written with the controller's annotations.
 */
final class BenchPresent {
  static final String NS = "bench-present";

  /**
   * IPv6 pool of the Services already present: the /24 of IPv4 documentation space is too small.
   */
  static final String POOL =
      """
      apiVersion: sart.terassyi.net/v1alpha2
      kind: AddressPool
      metadata:
        name: bench-present-v6
      spec:
        cidr: fd00:5a::/112
        type: service
        allocType: bit
        autoAssign: false
      """;

  private BenchPresent() {}

  static void run(KubernetesClient k, BenchSettings s) throws Exception {
    step("%d LoadBalancer Services (IPv6 pool, not peered) created in %s", s.present(), NS);
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    for (int i = 0; i < s.present(); i++) {
      int n = i;
      pool.execute(
          () -> {
            Service svc =
                Manifests.loadBalancer(
                    NS,
                    "p-" + n,
                    Map.of("app", "p-" + n),
                    "Cluster",
                    Map.of("sart.terassyi.net/addresspool", "bench-present-v6"));
            svc.getSpec().setIpFamilies(List.of("IPv6"));
            svc.getSpec().setIpFamilyPolicy("SingleStack");
            k.resource(svc).create();
          });
    }
    pool.shutdown();
    pool.awaitTermination(30, TimeUnit.MINUTES);
    long created = System.nanoTime();
    int[] with = {0};
    await("present Services have addresses")
        .atMost(Duration.ofMinutes(20))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> {
              with[0] =
                  (int)
                      k.services().inNamespace(NS).list().getItems().stream()
                          .filter(
                              x ->
                                  x.getStatus() != null
                                      && x.getStatus().getLoadBalancer() != null
                                      && x.getStatus().getLoadBalancer().getIngress() != null
                                      && !x.getStatus().getLoadBalancer().getIngress().isEmpty())
                          .count();
              return with[0] >= s.present();
            });
    long addressed = System.nanoTime();
    // steady state: the controller has made every BGPAdvertisement (they list no peer: the ToR
    // sessions carry IPv4 only)
    int[] adverts = {0};
    await("present Services' BGPAdvertisements")
        .atMost(Duration.ofMinutes(20))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> {
              adverts[0] =
                  k.resources(BGPAdvertisement.class).inNamespace(NS).list().getItems().size();
              return adverts[0] >= s.present();
            });
    long advertised = System.nanoTime();
    // and their EndpointSlices (the stand-in) with the controller's annotations: the samples
    // start from a steady state, not behind the stand-in's and the controller's backlog
    int[] slices = {0};
    await("present Services' EndpointSlices, annotated")
        .atMost(Duration.ofMinutes(20))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> {
              slices[0] =
                  (int)
                      k.discovery().v1().endpointSlices().inNamespace(NS).list().getItems().stream()
                          .filter(
                              x ->
                                  x.getMetadata().getAnnotations() != null
                                      && x.getMetadata()
                                          .getAnnotations()
                                          .containsKey(
                                              dev.sart.crds.Sart.SERVICE_ALLOCATION_ANNOTATION))
                          .count();
              return slices[0] >= s.present();
            });
    say(
        "  created in %.1f s, all %d with an address after %.1f s, all %d BGPAdvertisements"
            + " after %.1f s, all %d EndpointSlices annotated after %.1f s; load %s",
        secs(created - t0),
        with[0],
        secs(addressed - t0),
        adverts[0],
        secs(advertised - t0),
        slices[0],
        secs(System.nanoTime() - t0),
        load());
  }
}
