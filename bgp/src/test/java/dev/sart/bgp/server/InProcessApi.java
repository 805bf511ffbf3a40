package dev.sart.bgp.server;

import dev.sart.bgp.api.BgpApiService;
import dev.sart.proto.v1.BgpApiGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;

/** A speaker's gRPC API served in-process for a test, with a blocking stub on it. */
record InProcessApi(Server server, ManagedChannel channel, BgpApiGrpc.BgpApiBlockingStub stub)
    implements AutoCloseable {
  static InProcessApi serve(BgpServer speaker) throws IOException {
    String name = InProcessServerBuilder.generateName();
    Server server =
        InProcessServerBuilder.forName(name).addService(new BgpApiService(speaker)).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    return new InProcessApi(server, channel, BgpApiGrpc.newBlockingStub(channel));
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }
}
