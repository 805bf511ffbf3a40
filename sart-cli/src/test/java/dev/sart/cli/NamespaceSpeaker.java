package dev.sart.cli;

import dev.sart.bgp.api.BgpApiService;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A speaker listening on port 179 in a test's network namespace, its gRPC API on the host's
 * loopback: how the CLI and explain reach a node's speaker.
 */
record NamespaceSpeaker(BgpServer speaker, Server api) implements AutoCloseable {
  static NamespaceSpeaker start(Node node, long asn, String routerId) throws IOException {
    BgpServer s = new BgpServer(179, 1, NamespaceThreads.factory(node, "bgp-io"));
    s.setLocalAs(asn);
    s.setRouterId(Ip.parseV4(routerId));
    s.start();
    Server api =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new BgpApiService(s))
            .build()
            .start();
    return new NamespaceSpeaker(s, api);
  }

  /** The API's host:port, for {@code -e} or {@code --speaker}. */
  String endpoint() {
    return "127.0.0.1:" + api.getPort();
  }

  @Override
  public void close() {
    api.shutdownNow();
    speaker.close();
  }
}
