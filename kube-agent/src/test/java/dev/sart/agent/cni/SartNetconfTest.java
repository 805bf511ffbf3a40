package dev.sart.agent.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.ipam.Block;
import dev.sart.proto.v1.Args;
import dev.sart.proto.v1.CNIApiGrpc;
import dev.sart.proto.v1.CNIResult;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sart's CNI set-up, unchanged: the agent's {@code --cni-endpoint} is a TCP address and the netconf
 * sart installs names it as {@code "endpoint": "http://localhost:6000"}. The plugin binary, run as
 * a runtime runs it with that netconf, reaches the agent there, and sart's gRPC {@code CNIApi} is
 * served on the same port; every call is counted under sart's metric names.
 */
class SartNetconfTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void sartsNetconfWithAnHttpEndpointAddsAndDeletesPodsAndGrpcSharesThePort() throws Exception {
    Topology t = testbed.topology();
    Node node = t.node("node");
    Node pod = t.node("pod");
    Node pod2 = t.node("pod2");
    AgentConfig config =
        AgentConfig.of(
                t.dir().resolve("sart.sock"),
                Path.of("/var/run/netns", node.netns()),
                "192.0.2.1",
                null,
                List.of(Block.parse("default=198.51.100.0/28")),
                "default")
            .withGrpcAddress("127.0.0.1:0");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (CniAgent agent = CniAgent.start(config)) {
      agent.metrics(registry);
      // manifests/cni/netconf.json of sart, with the port this test's agent got
      String sartNetconf =
          "{\"cniVersion\":\"1.0.0\",\"name\":\"sart-network\",\"type\":\"sart-cni\","
              + "\"endpoint\":\"http://localhost:"
              + agent.grpcPort()
              + "\",\"timeout\":60}";
      String netns = "/var/run/netns/" + pod.netns();
      CniRuntime.Outcome add =
          CniRuntime.exec(CniRuntime.env("ADD", "sart-tcp", netns, "eth0"), sartNetconf).ok();
      assertEquals("198.51.100.1/32", add.json().path("ips").get(0).path("address").asText());
      assertTrue(pod.exec("ip", "-br", "address", "show", "eth0").contains("198.51.100.1/32"));

      // a gRPC client of sart's CNIApi on the same port
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", agent.grpcPort()).usePlaintext().build();
      try {
        CNIApiGrpc.CNIApiBlockingStub api =
            CNIApiGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        Args args =
            Args.newBuilder()
                .setContainerId("grpc-tcp")
                .setNetns("/var/run/netns/" + pod2.netns())
                .setIfname("eth0")
                .setData(sartNetconf)
                .build();
        CNIResult r = api.add(args);
        assertEquals("198.51.100.2/32", r.getIps(0).getAddress());
        api.del(args);
        assertThrows(
            StatusRuntimeException.class,
            () -> api.add(args.toBuilder().setData(sartNetconf.replace("1.0.0", "0.2.0")).build()));
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }

      CniRuntime.exec(CniRuntime.env("DEL", "sart-tcp", netns, "eth0"), sartNetconf).ok();
      assertEquals(List.of(), agent.allocations());
      assertTrue(
          pod.exec("ip", "-br", "address", "show")
              .lines()
              .noneMatch(l -> l.contains("198.51.100.1")));

      // sart_agent_cni_call_total{method} counts every call, _errors_total{method,code} the failed
      assertEquals(3.0, registry.get("sart.agent.cni.call").tag("method", "add").counter().count());
      assertEquals(2.0, registry.get("sart.agent.cni.call").tag("method", "del").counter().count());
      assertEquals(
          1.0,
          registry
              .get("sart.agent.cni.call.errors")
              .tag("method", "add")
              .tag("code", "1")
              .counter()
              .count());
    }
  }
}
