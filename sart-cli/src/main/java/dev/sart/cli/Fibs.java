package dev.sart.cli;

import dev.sart.proto.v1.FibManagerApiGrpc;
import dev.sart.proto.v1.LookupRouteRequest;
import dev.sart.proto.v1.LookupRouteResponse;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The node FIB daemons' gRPC APIs ({@code FibManagerApi}), as {@code explain pod} asks them for the
 * kernel's route to an address. One channel per endpoint; read-only calls only.
 */
final class Fibs implements AutoCloseable {
  /** sart's default FibManagerApi port; the host is the node speaker's. */
  static final int DEFAULT_PORT = 5001;

  /** The kernel's answer, or why it could not be asked ({@code route} null, {@code error} set). */
  record Answer(LookupRouteResponse route, String error) {}

  private final Map<String, String> overrides;
  private final Map<String, ManagedChannel> channels = new HashMap<>();

  /**
   * @param overrides node name → host:port of its FibManagerApi
   */
  Fibs(Map<String, String> overrides) {
    this.overrides = overrides;
  }

  /** Whether the FIB endpoint of {@code node} was given ({@code --fib}), not derived. */
  boolean given(String node) {
    return overrides.containsKey(node);
  }

  /** The FIB endpoint of a node: the override, else the speaker's host on port 5001. */
  String endpoint(String node, String speakerPath) {
    String o = overrides.get(node);
    if (o != null) {
      return o;
    }
    int colon = speakerPath == null ? -1 : speakerPath.lastIndexOf(':');
    String host = colon < 0 ? "127.0.0.1" : speakerPath.substring(0, colon);
    return host + ":" + DEFAULT_PORT;
  }

  Answer lookup(String endpoint, String address) {
    try {
      return new Answer(
          FibManagerApiGrpc.newBlockingStub(channel(endpoint))
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .lookupRoute(LookupRouteRequest.newBuilder().setDestination(address).build()),
          null);
    } catch (IllegalArgumentException e) {
      return new Answer(null, e.getMessage());
    } catch (StatusRuntimeException e) {
      return new Answer(
          null,
          switch (e.getStatus().getCode()) {
            case UNAVAILABLE, DEADLINE_EXCEEDED -> "cannot reach the FIB's API at " + endpoint;
            case UNIMPLEMENTED -> "the FIB at " + endpoint + " has no LookupRoute";
            default ->
                e.getStatus().getCode().name().toLowerCase(Locale.ROOT)
                    + ": "
                    + e.getStatus().getDescription();
          });
    }
  }

  private ManagedChannel channel(String endpoint) {
    return channels.computeIfAbsent(
        endpoint,
        ep -> {
          int colon = ep.lastIndexOf(':');
          if (colon < 0) {
            throw new IllegalArgumentException("FIB endpoint must be host:port: " + ep);
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
