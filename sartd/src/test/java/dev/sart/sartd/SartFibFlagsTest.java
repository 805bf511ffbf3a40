package dev.sart.sartd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetBgpInfoRequest;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sart's CNI overlay runs the speaker as {@code sartd bgp --fib localhost:5010} (and its config may
 * hold {@code fib_endpoint}/{@code fib_table}). Here {@code sartd fib} pulls the best paths from
 * the speaker's API instead, so these are superseded: the speaker starts as asked and says so once,
 * naming the channel that does the same.
 */
class SartFibFlagsTest {
  @TempDir Path dir;

  @Test
  void sartsFibFlagsAndKeysAreSupersededSaidOnceAndTheSpeakerRuns() throws Exception {
    Path conf =
        Files.writeString(
            dir.resolve("sart.yaml"),
            """
            asn: 65010
            router_id: 192.0.2.10
            fib_endpoint: localhost:5010
            fib_table: 254
            """);
    int api;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      api = s.getLocalPort();
    }
    Path log = dir.resolve("sartd.log");
    Process p =
        dev.sart.testbed.Programs.processBuilder(
                List.of(
                    ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "dev.sart.sartd.Sartd",
                    "bgp",
                    "-f",
                    conf.toString(),
                    "--fib",
                    "localhost:5010",
                    "--table-id",
                    "120",
                    "--port",
                    "0",
                    "--api",
                    "127.0.0.1:" + api,
                    "--warmup",
                    "0",
                    "--metrics-address",
                    "off",
                    "-o",
                    log.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("out.txt").toFile())
            .start();
    try {
      await("sartd bgp serves its API")
          .atMost(Duration.ofSeconds(90))
          .failFast("sartd bgp exited", () -> !p.isAlive())
          .until(() -> Files.exists(log) && Files.readString(log).contains("event=api-listening"));
      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", api).usePlaintext().build();
      try {
        var info =
            BgpApiGrpc.newBlockingStub(ch)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .getBgpInfo(GetBgpInfoRequest.getDefaultInstance())
                .getInfo();
        assertEquals(65010, info.getAsn());
        assertEquals("192.0.2.10", info.getRouterId());
      } finally {
        ch.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      List<String> warnings =
          Files.readAllLines(log).stream().filter(l -> l.contains("event=fib-ignored")).toList();
      assertEquals(1, warnings.size(), "said once: " + warnings);
      String w = warnings.get(0);
      assertTrue(w.contains("fib=localhost:5010") && w.contains("table=120"), w);
      assertTrue(w.contains("endpoint: 127.0.0.1:" + api) && w.contains("tables: [120]"), w);
    } finally {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }
}
