package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Errno;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.OperState;
import dev.sart.fib.netlink.Route;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.proto.ApiErrors;
import dev.sart.proto.v1.FibManagerApiGrpc;
import dev.sart.proto.v1.GetChannelRequest;
import dev.sart.proto.v1.GetChannelResponse;
import dev.sart.proto.v1.GetRoutesRequest;
import dev.sart.proto.v1.GetRoutesResponse;
import dev.sart.proto.v1.ListChannelRequest;
import dev.sart.proto.v1.ListChannelResponse;
import dev.sart.proto.v1.LookupRouteRequest;
import dev.sart.proto.v1.LookupRouteResponse;
import dev.sart.proto.v1.RouteLink;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * sart.v1 {@code FibManagerApi}: the channels as configured, the routes each one selected, and the
 * kernel's route to an address ({@code LookupRoute}, an addition).
 */
final class FibManagerService extends FibManagerApiGrpc.FibManagerApiImplBase {
  private final List<Channel> channels;
  private final Supplier<Netlink> kernel;

  /**
   * @param kernel opens a netlink socket in the namespace whose tables the daemon serves
   */
  FibManagerService(List<Channel> channels, Supplier<Netlink> kernel) {
    this.channels = List.copyOf(channels);
    this.kernel = kernel;
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

  @Override
  public void lookupRoute(LookupRouteRequest request, StreamObserver<LookupRouteResponse> out) {
    reply(out, () -> lookup(ApiErrors.request(() -> Ip.parse(request.getDestination().strip()))));
  }

  /** {@code ip route get}: RTM_GETROUTE with RTM_F_FIB_MATCH, through the policy rules. */
  private LookupRouteResponse lookup(InetAddress destination) {
    try (Netlink nl = kernel.get()) {
      Route r;
      try {
        r = nl.routes().get(destination);
      } catch (NetlinkException e) {
        if (e.errno() == Errno.ENETUNREACH || e.errno() == Errno.EHOSTUNREACH) {
          return LookupRouteResponse.newBuilder().setFound(false).build();
        }
        throw e;
      }
      LookupRouteResponse.Builder b =
          LookupRouteResponse.newBuilder().setFound(true).setRoute(ProtoRoutes.route(r));
      for (NextHop h : r.nextHops()) {
        RouteLink.Builder l = RouteLink.newBuilder().setIndex(h.index());
        if (h.index() != 0) {
          nl.links()
              .find(h.index())
              .ifPresent(
                  link ->
                      l.setName(link.name())
                          .setUp(
                              link.isUp()
                                  && (link.operState() == OperState.UP
                                      || link.operState() == OperState.UNKNOWN)));
        }
        b.addLinks(l);
      }
      return b.build();
    }
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
