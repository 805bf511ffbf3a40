package dev.sart.fib.daemon;

import com.google.protobuf.Empty;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.NextHop;
import dev.sart.net.IpPrefix;
import dev.sart.proto.ApiErrors;
import dev.sart.proto.v1.AddMultiPathRouteRequest;
import dev.sart.proto.v1.AddRouteRequest;
import dev.sart.proto.v1.DeleteMultiPathRouteRequest;
import dev.sart.proto.v1.DeleteRouteRequest;
import dev.sart.proto.v1.FibApiGrpc;
import dev.sart.proto.v1.GetRouteRequest;
import dev.sart.proto.v1.GetRouteResponse;
import dev.sart.proto.v1.IpVersion;
import dev.sart.proto.v1.ListRoutesRequest;
import dev.sart.proto.v1.ListRoutesResponse;
import dev.sart.proto.v1.Route;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * sart.v1 {@code FibApi} for a push subscriber: routes pushed by a speaker enter the channel;
 * GetRoute and ListRoutes (stubs in sart) answer with the channel's selected routes.
 */
final class FibApiService extends FibApiGrpc.FibApiImplBase {
  private final FibApiSubscriber source;
  private final Channel channel;

  FibApiService(FibApiSubscriber source, Channel channel) {
    this.source = source;
    this.channel = channel;
  }

  @Override
  public void getRoute(GetRouteRequest request, StreamObserver<GetRouteResponse> out) {
    FibManagerService.reply(
        out,
        () -> {
          IpPrefix p = ApiErrors.request(() -> prefix(request.getDestination()));
          ChannelRoute r = channel.selected().get(p);
          if (r == null) {
            throw Status.NOT_FOUND
                .withDescription("no route to " + p + " in channel " + channel.name())
                .asRuntimeException();
          }
          return GetRouteResponse.newBuilder()
              .setRoute(ProtoRoutes.route(r, request.getTable()))
              .build();
        });
  }

  @Override
  public void listRoutes(ListRoutesRequest request, StreamObserver<ListRoutesResponse> out) {
    FibManagerService.reply(
        out,
        () -> {
          ListRoutesResponse.Builder b = ListRoutesResponse.newBuilder();
          channel.selected().values().stream()
              .filter(
                  r ->
                      request.getVersion() == IpVersion.Unkown
                          || ProtoRoutes.version(Family.of(r.destination()))
                              == request.getVersion())
              .sorted((x, y) -> x.destination().compareTo(y.destination()))
              .forEach(r -> b.addRoutes(ProtoRoutes.route(r, request.getTable())));
          return b.build();
        });
  }

  @Override
  public void addRoute(AddRouteRequest request, StreamObserver<Empty> out) {
    FibManagerService.command(
        out,
        () -> {
          Route r = request.getRoute();
          source.add(prefix(r.getDestination()), hops(r), distance(r), request.getReplace());
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void deleteRoute(DeleteRouteRequest request, StreamObserver<Empty> out) {
    FibManagerService.command(
        out,
        () -> {
          source.delete(prefix(request.getDestination()));
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void addMultiPathRoute(AddMultiPathRouteRequest request, StreamObserver<Empty> out) {
    FibManagerService.command(
        out,
        () -> {
          Route r = request.getRoute();
          source.addMultipath(prefix(r.getDestination()), hops(r), distance(r));
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void deleteMultiPathRoute(DeleteMultiPathRouteRequest request, StreamObserver<Empty> out) {
    FibManagerService.command(
        out,
        () -> {
          List<InetAddress> gws =
              request.getGatewaysList().stream().map(FibApiService::address).toList();
          source.deleteMultipath(prefix(request.getDestination()), gws);
          return Empty.getDefaultInstance();
        });
  }

  /** sart's speaker sets ad to 20 or 200; without one, the ibgp flag decides. */
  private static int distance(Route r) {
    if (r.getAdValue() != 0) {
      return r.getAdValue();
    }
    return r.getIbgp() ? Distance.IBGP : Distance.EBGP;
  }

  private static List<NextHop> hops(Route r) {
    List<NextHop> hops = new ArrayList<>();
    for (dev.sart.proto.v1.NextHop h : r.getNextHopsList()) {
      InetAddress gw = h.getGateway().isEmpty() ? null : address(h.getGateway());
      if (gw == null && h.getInterface() == 0) {
        throw new IllegalArgumentException("a next hop needs a gateway or an interface");
      }
      hops.add(
          new NextHop(
              gw,
              h.getInterface(),
              Math.max(1, Math.min(256, h.getWeight() == 0 ? 1 : h.getWeight())),
              java.util.Set.of()));
    }
    if (hops.isEmpty()) {
      throw new IllegalArgumentException("the route to " + r.getDestination() + " has no next hop");
    }
    return hops;
  }

  private static IpPrefix prefix(String text) {
    try {
      return IpPrefix.parse(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("'" + text + "' is not a prefix");
    }
  }

  private static InetAddress address(String text) {
    try {
      return InetAddress.ofLiteral(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address");
    }
  }
}
