package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.NextHop;
import dev.sart.net.Ip;
import dev.sart.proto.v1.ChProtocol;
import dev.sart.proto.v1.IpVersion;
import dev.sart.proto.v1.Route;
import dev.sart.proto.v1.Scope;
import dev.sart.proto.v1.Type;

/** The daemon's values as sart.v1 messages (fib.proto, fib_manager.proto). */
final class ProtoRoutes {
  private ProtoRoutes() {}

  static IpVersion version(Family f) {
    return f == Family.INET ? IpVersion.V4 : IpVersion.V6;
  }

  /** A selected route; {@code table} is 0 when it stands for every table of the channel. */
  static Route route(ChannelRoute r, int table) {
    Route.Builder b =
        Route.newBuilder()
            .setTable(table)
            .setVersion(version(Family.of(r.destination())))
            .setDestination(r.destination().toString())
            .setProtocolValue(r.protocol())
            .setScope(Scope.Universe)
            .setType(Type.Unicast)
            .setAdValue(r.distance())
            .setPriority(r.distance())
            .setIbgp(r.distance() == Distance.IBGP && r.source().startsWith("bgp"));
    for (NextHop h : r.nextHops()) {
      dev.sart.proto.v1.NextHop.Builder nh =
          dev.sart.proto.v1.NextHop.newBuilder().setWeight(h.weight()).setInterface(h.index());
      if (h.gateway() != null) {
        nh.setGateway(Ip.format(h.gateway()));
      }
      b.addNextHops(nh);
    }
    return b.build();
  }

  /** A route as the kernel holds it (its table, protocol, scope, type, metric, next hops). */
  static Route route(dev.sart.fib.netlink.Route r) {
    Route.Builder b =
        Route.newBuilder()
            .setTable(r.table())
            .setVersion(version(Family.of(r.destination())))
            .setDestination(r.destination().toString())
            .setProtocolValue(r.protocol())
            .setScopeValue(r.scope().code())
            .setTypeValue(r.type().code())
            .setPriority(r.metric());
    if (r.preferredSource() != null) {
      b.setSource(Ip.format(r.preferredSource()));
    }
    for (NextHop h : r.nextHops()) {
      dev.sart.proto.v1.NextHop.Builder nh =
          dev.sart.proto.v1.NextHop.newBuilder().setWeight(h.weight()).setInterface(h.index());
      if (h.gateway() != null) {
        nh.setGateway(Ip.format(h.gateway()));
      }
      b.addNextHops(nh);
    }
    return b.build();
  }

  static ChProtocol protocol(FibConfig.Endpoint e) {
    ChProtocol.Builder b = ChProtocol.newBuilder().setType(e.protocol().name());
    if (e.endpoint() != null) {
      b.setEndpoint(e.endpoint());
    }
    e.tables().forEach(b::addTables);
    return b.build();
  }

  static dev.sart.proto.v1.Channel channel(FibConfig.ChannelConfig c) {
    dev.sart.proto.v1.Channel.Builder b = dev.sart.proto.v1.Channel.newBuilder().setName(c.name());
    c.subscribers().forEach(e -> b.addSubscribers(protocol(e)));
    c.publishers().forEach(e -> b.addPublishers(protocol(e)));
    return b.build();
  }
}
