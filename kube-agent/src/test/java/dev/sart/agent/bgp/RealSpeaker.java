package dev.sart.agent.bgp;

import dev.sart.bgp.api.BgpApiService;
import dev.sart.bgp.server.BgpServer;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A real speaker for the agent: {@link BgpServer} whose BGP sockets live in a test namespace, with
 * its gRPC BgpApi served on loopback in the test's own namespace, restartable on the same port.
 */
final class RealSpeaker implements AutoCloseable {
  private final Node node;
  BgpServer bgp;
  private Server grpc;
  private int port;

  RealSpeaker(Node node) {
    this.node = node;
  }

  RealSpeaker start() throws IOException {
    return start(null);
  }

  /**
   * Starts the speaker; with {@code restart} as the restarting speaker of RFC 4724 §4.1 (as {@code
   * sartd node} runs it), else without.
   */
  RealSpeaker start(dev.sart.bgp.peer.RestartingSpeaker.Settings restart) throws IOException {
    bgp = new BgpServer(179, 1, NamespaceThreads.factory(node, "bgp-io"));
    if (restart != null) {
      bgp.restartGracefully(restart);
    }
    bgp.start();
    grpc =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .addService(new BgpApiService(bgp))
            .build()
            .start();
    port = grpc.getPort();
    return this;
  }

  String endpoint() {
    return "127.0.0.1:" + port;
  }

  /** Stops the speaker (its sessions drop, its API goes away). */
  void stop() throws InterruptedException {
    grpc.shutdownNow();
    grpc.awaitTermination();
    bgp.close();
  }

  @Override
  public void close() throws Exception {
    stop();
  }
}
