package dev.sart.cli;

import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.ExplainExportRequest;
import dev.sart.proto.v1.ExplainExportResponse;
import dev.sart.proto.v1.GetNeighborRequest;
import dev.sart.proto.v1.Peer;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The node speakers' gRPC APIs, as {@code explain} asks them: a neighbour's session and whether a
 * prefix is exported to it. One channel per endpoint; read-only calls only.
 */
final class Speakers implements AutoCloseable {
  /** What a speaker answered about one neighbour, or why it could not be asked. */
  record Answer(Peer peer, ExplainExportResponse export, String error, boolean unreachable) {}

  private final Map<String, String> overrides;
  private final Map<String, ManagedChannel> channels = new HashMap<>();

  /**
   * @param overrides node name → host:port, used instead of the NodeBGP's {@code speaker.path}
   */
  Speakers(Map<String, String> overrides) {
    this.overrides = overrides;
  }

  /** The endpoint explain uses for a node's speaker. */
  String endpoint(String node, String fromNodeBgp) {
    return overrides.getOrDefault(node, fromNodeBgp);
  }

  Answer ask(String endpoint, String neighbor, String prefix) {
    BgpApiGrpc.BgpApiBlockingStub stub;
    try {
      stub = BgpApiGrpc.newBlockingStub(channel(endpoint)).withDeadlineAfter(5, TimeUnit.SECONDS);
    } catch (IllegalArgumentException e) {
      return new Answer(null, null, e.getMessage(), true);
    }
    Peer peer;
    try {
      peer = stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr(neighbor).build()).getPeer();
    } catch (StatusRuntimeException e) {
      return failure(endpoint, e);
    }
    try {
      ExplainExportResponse x =
          BgpApiGrpc.newBlockingStub(channel(endpoint))
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .explainExport(
                  ExplainExportRequest.newBuilder().setAddr(neighbor).setPrefix(prefix).build());
      return new Answer(peer, x, null, false);
    } catch (StatusRuntimeException e) {
      Answer f = failure(endpoint, e);
      return new Answer(peer, null, f.error(), f.unreachable());
    }
  }

  private static Answer failure(String endpoint, StatusRuntimeException e) {
    return switch (e.getStatus().getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED ->
          new Answer(null, null, "cannot reach the speaker's API at " + endpoint, true);
      case NOT_FOUND -> new Answer(null, null, "the speaker has no such neighbour", false);
      case UNIMPLEMENTED ->
          new Answer(null, null, "the speaker at " + endpoint + " has no ExplainExport", false);
      default ->
          new Answer(
              null,
              null,
              e.getStatus().getCode().name().toLowerCase(java.util.Locale.ROOT)
                  + ": "
                  + e.getStatus().getDescription(),
              false);
    };
  }

  private ManagedChannel channel(String endpoint) {
    return channels.computeIfAbsent(
        endpoint,
        ep -> {
          int colon = ep.lastIndexOf(':');
          if (colon < 0) {
            throw new IllegalArgumentException("speaker endpoint must be host:port: " + ep);
          }
          return NettyChannelBuilder.forAddress(
                  ep.substring(0, colon).replace("[", "").replace("]", ""),
                  Integer.parseInt(ep.substring(colon + 1)))
              .usePlaintext()
              .build();
        });
  }

  @Override
  public void close() {
    channels.values().forEach(Sart::close);
  }
}
