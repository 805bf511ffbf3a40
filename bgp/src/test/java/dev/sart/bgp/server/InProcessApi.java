package dev.sart.bgp.server;

import dev.sart.bgp.api.BgpApiService;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetPathRequest;
import dev.sart.proto.v1.Path;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A speaker's gRPC API served in-process for a test, with a blocking stub on it. */
record InProcessApi(Server server, ManagedChannel channel, BgpApiGrpc.BgpApiBlockingStub stub)
    implements AutoCloseable {
  /** IPv4 unicast, as the API names the family. */
  static final AddressFamily IPV4 =
      AddressFamily.newBuilder()
          .setAfi(AddressFamily.Afi.AFI_IP4)
          .setSafi(AddressFamily.Safi.SAFI_UNICAST)
          .build();

  static InProcessApi serve(BgpServer speaker) throws IOException {
    String name = InProcessServerBuilder.generateName();
    Server server =
        InProcessServerBuilder.forName(name).addService(new BgpApiService(speaker)).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    return new InProcessApi(server, channel, BgpApiGrpc.newBlockingStub(channel));
  }

  /** The IPv4 Loc-RIB as {@code GetPath} lists it, asked with a 10 s deadline. */
  List<Path> ipv4Paths() {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS)
        .getPath(GetPathRequest.newBuilder().setFamily(IPV4).build())
        .getPathsList();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }
}
