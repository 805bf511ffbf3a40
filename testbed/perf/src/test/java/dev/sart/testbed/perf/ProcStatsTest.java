package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.mockapi.MockKubeconfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/footprint}'s readings of a process: CPU by thread, and a pod's view of its API. */
class ProcStatsTest {
  @Test
  void cpuIsCountedByThreadNameWithItsNumbersTakenOut() throws Exception {
    long pid = ProcessHandle.current().pid();
    double before = ProcStats.byThread(pid).getOrDefault("burner-#", 0.0);
    Thread burner =
        Thread.ofPlatform()
            .name("burner-17")
            .start(
                () -> {
                  long end = System.nanoTime() + 300_000_000L;
                  long x = 0;
                  while (System.nanoTime() < end) {
                    x += Long.numberOfTrailingZeros(x + System.nanoTime());
                  }
                  if (x == 42) {
                    System.out.println(x);
                  }
                });
    // read while it still runs: an ended thread leaves /proc/PID/task
    Thread.sleep(250);
    Map<String, Double> byThread = ProcStats.byThread(pid);
    burner.join();
    assertTrue(
        byThread.getOrDefault("burner-#", 0.0) - before >= 0.1,
        "a thread that spun for 250 ms: " + byThread);
    assertTrue(
        byThread.containsKey("C1 compiler") || byThread.containsKey("C2 compiler"),
        "the JIT's threads by compiler: " + byThread.keySet());
    double first = byThread.values().iterator().next();
    assertTrue(byThread.values().stream().allMatch(v -> v <= first), "largest first: " + byThread);
  }

  @Test
  void aPodFindsTheApiServerOfTheKubeconfigThroughItsEnvironmentAndFiles(@TempDir Path dir)
      throws Exception {
    String pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    Path kubeconfig =
        MockKubeconfig.write(
            dir.resolve("kubeconfig"),
            "https://127.0.0.1:16443",
            Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)));
    Map<String, String> env = Footprint.inCluster(kubeconfig, dir.resolve("sa"));
    assertEquals("127.0.0.1", env.get("KUBERNETES_SERVICE_HOST"));
    assertEquals("16443", env.get("KUBERNETES_SERVICE_PORT"));
    assertEquals("false", env.get("KUBERNETES_AUTH_TRYKUBECONFIG"));
    assertEquals(pem, Files.readString(Path.of(env.get("KUBERNETES_CERTS_CA_FILE"))));
    assertEquals(
        "test", Files.readString(Path.of(env.get("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN"))));
  }
}
