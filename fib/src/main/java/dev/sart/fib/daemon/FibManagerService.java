package dev.sart.fib.daemon;

import dev.sart.net.IpPrefix;
import dev.sart.proto.ApiErrors;
import dev.sart.proto.v1.FibManagerApiGrpc;
import dev.sart.proto.v1.GetChannelRequest;
import dev.sart.proto.v1.GetChannelResponse;
import dev.sart.proto.v1.GetRoutesRequest;
import dev.sart.proto.v1.GetRoutesResponse;
import dev.sart.proto.v1.ListChannelRequest;
import dev.sart.proto.v1.ListChannelResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** sart.v1 {@code FibManagerApi}: the channels as configured and the routes each one selected. */
final class FibManagerService extends FibManagerApiGrpc.FibManagerApiImplBase {
  private final List<Channel> channels;

  FibManagerService(List<Channel> channels) {
    this.channels = List.copyOf(channels);
  }

  private Channel channel(String name) {
    return channels.stream()
        .filter(c -> c.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                Status.NOT_FOUND
                    .withDescription(
                        "no channel '"
                            + name
                            + "' (have "
                            + channels.stream().map(Channel::name).toList()
                            + ")")
                    .asRuntimeException());
  }

  @Override
  public void getChannel(GetChannelRequest request, StreamObserver<GetChannelResponse> out) {
    reply(
        out,
        () ->
            GetChannelResponse.newBuilder()
                .setChannel(ProtoRoutes.channel(channel(request.getName()).config()))
                .build());
  }

  @Override
  public void listChannel(ListChannelRequest request, StreamObserver<ListChannelResponse> out) {
    reply(
        out,
        () -> {
          ListChannelResponse.Builder b = ListChannelResponse.newBuilder();
          channels.forEach(c -> b.addChannels(ProtoRoutes.channel(c.config())));
          return b.build();
        });
  }

  @Override
  public void getRoutes(GetRoutesRequest request, StreamObserver<GetRoutesResponse> out) {
    reply(
        out,
        () -> {
          GetRoutesResponse.Builder b = GetRoutesResponse.newBuilder();
          channel(request.getChannel()).selected().entrySet().stream()
              .sorted(Map.Entry.comparingByKey(Comparator.<IpPrefix>naturalOrder()))
              .forEach(e -> b.addRoutes(ProtoRoutes.route(e.getValue(), 0)));
          return b.build();
        });
  }

  /** Answers a query: an exception its body throws is a bug (INTERNAL), see {@link ApiErrors}. */
  static <T> void reply(StreamObserver<T> out, java.util.function.Supplier<T> f) {
    T value;
    try {
      value = f.get();
    } catch (RuntimeException e) {
      out.onError(ApiErrors.toStatus(e));
      return;
    }
    out.onNext(value);
    out.onCompleted();
  }

  /**
   * Applies a change the caller asked for: the body judges the request, so its {@link
   * IllegalArgumentException} is INVALID_ARGUMENT ({@link ApiErrors#request}).
   */
  static <T> void command(StreamObserver<T> out, java.util.function.Supplier<T> f) {
    reply(out, () -> ApiErrors.request(f));
  }
}
