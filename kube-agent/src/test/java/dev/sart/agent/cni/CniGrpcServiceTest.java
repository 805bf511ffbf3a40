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
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** sart's gRPC CNIApi, as a tool calls it: the same ADD/CHECK/DEL as the plugin's socket. */
class CniGrpcServiceTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void addCheckAndDelOverGrpc() throws Exception {
    Topology t = testbed.topology();
    Node node = t.node("node");
    Node pod = t.node("pod");
    AgentConfig config =
        AgentConfig.of(
                t.dir().resolve("sart.sock"),
                Path.of("/var/run/netns", node.netns()),
                "192.0.2.1",
                null,
                List.of(Block.parse("default=198.51.100.0/28")),
                "default")
            .withGrpcAddress("127.0.0.1:0");
    try (CniAgent agent = CniAgent.start(config)) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", agent.grpcPort()).usePlaintext().build();
      try {
        CNIApiGrpc.CNIApiBlockingStub api =
            CNIApiGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        String conf = new CniRuntime(config.socket()).conf("1.0.0");
        Args args =
            Args.newBuilder()
                .setContainerId("grpc")
                .setNetns("/var/run/netns/" + pod.netns())
                .setIfname("eth0")
                .setData(conf)
                .build();
        CNIResult r = api.add(args);
        assertEquals(1, r.getIpsCount());
        assertEquals("198.51.100.1/32", r.getIps(0).getAddress());
        assertEquals("192.0.2.1", r.getIps(0).getGateway());
        assertEquals(
            "/var/run/netns/" + pod.netns(),
            r.getInterfaces(r.getIps(0).getInterface()).getSandbox());
        assertTrue(pod.exec("ip", "-br", "address", "show", "eth0").contains("198.51.100.1/32"));

        String withPrev =
            CniRuntime.with(conf, "prevResult", "{\"ips\":[{\"address\":\"198.51.100.1/32\"}]}");
        api.check(args.toBuilder().setData(withPrev).build());
        api.del(args);
        assertEquals(List.of(), agent.allocations());

        StatusRuntimeException e =
            assertThrows(
                StatusRuntimeException.class,
                () -> api.add(args.toBuilder().setData(conf.replace("1.0.0", "0.2.0")).build()));
        assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
        assertTrue(
            e.getStatus().getDescription().contains("\"code\":1"), e.getStatus().getDescription());
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
