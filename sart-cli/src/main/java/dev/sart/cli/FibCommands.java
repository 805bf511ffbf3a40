package dev.sart.cli;

import dev.sart.proto.v1.ChProtocol;
import dev.sart.proto.v1.Channel;
import dev.sart.proto.v1.FibManagerApiGrpc;
import dev.sart.proto.v1.GetChannelRequest;
import dev.sart.proto.v1.GetRoutesRequest;
import dev.sart.proto.v1.IpVersion;
import dev.sart.proto.v1.ListChannelRequest;
import dev.sart.proto.v1.NextHop;
import dev.sart.proto.v1.Route;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sart fib channel get|list|route}: sart's FIB commands against {@code FibManagerApi}
 * (default localhost:5001).
 */
@Command(name = "fib", description = "The FIB daemon (sartd fib; -e defaults to localhost:5001)")
final class FibCommands {
  /** sart's default endpoint of {@code sart fib}. */
  static final String DEFAULT_ENDPOINT = "localhost:5001";

  static final class Ctx {
    final CommandSpec spec;

    Ctx(CommandSpec spec) {
      this.spec = spec;
    }

    Sart root() {
      return (Sart) spec.root().userObject();
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    Output.Format format() {
      return root().output;
    }

    /** -e when given anywhere on the command line, else the FIB's default (not the speaker's). */
    String endpoint() {
      for (CommandLine.ParseResult pr = spec.root().commandLine().getParseResult();
          pr != null;
          pr = pr.subcommand()) {
        if (pr.hasMatchedOption("--endpoint")) {
          return root().endpoint;
        }
      }
      return DEFAULT_ENDPOINT;
    }

    <T> T call(Function<FibManagerApiGrpc.FibManagerApiBlockingStub, T> f) {
      String ep = endpoint();
      int colon = ep.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("endpoint must be host:port: " + ep);
      }
      ManagedChannel ch =
          NettyChannelBuilder.forAddress(
                  ep.substring(0, colon).replace("[", "").replace("]", ""),
                  Integer.parseInt(ep.substring(colon + 1)))
              .usePlaintext()
              .build();
      try {
        return f.apply(
            FibManagerApiGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS));
      } finally {
        Sart.close(ch);
      }
    }
  }

  static Map<String, Object> protocol(ChProtocol p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", p.getType());
    m.put("endpoint", p.getEndpoint());
    m.put("tables", p.getTablesList().stream().map(Integer::toUnsignedLong).toList());
    return m;
  }

  static Map<String, Object> channel(Channel c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", c.getName());
    m.put("subscribers", c.getSubscribersList().stream().map(FibCommands::protocol).toList());
    m.put("publishers", c.getPublishersList().stream().map(FibCommands::protocol).toList());
    return m;
  }

  static Map<String, Object> route(Route r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("table", Integer.toUnsignedLong(r.getTable()));
    m.put("version", r.getVersion() == IpVersion.V6 ? "ipv6" : "ipv4");
    m.put("destination", r.getDestination());
    m.put("protocol", r.getProtocolValue());
    m.put("scope", r.getScopeValue());
    m.put("type", r.getTypeValue());
    List<Map<String, Object>> hops = new ArrayList<>();
    for (NextHop h : r.getNextHopsList()) {
      Map<String, Object> hm = new LinkedHashMap<>();
      hm.put("gateway", h.getGateway());
      hm.put("weight", h.getWeight());
      hm.put("interface", h.getInterface());
      hops.add(hm);
    }
    m.put("nextHops", hops);
    m.put("ad", r.getAdValue());
    m.put("priority", Integer.toUnsignedLong(r.getPriority()));
    m.put("ibgp", r.getIbgp());
    return m;
  }

  private static String describe(ChProtocol p) {
    return "kernel".equals(p.getType())
        ? "kernel tables "
            + p.getTablesList().stream()
                .map(Integer::toUnsignedString)
                .collect(Collectors.joining(", "))
        : p.getType() + " " + p.getEndpoint();
  }

  static void printChannels(Ctx c, List<Channel> channels, boolean list) {
    if (c.format() != Output.Format.plain) {
      Object v =
          list
              ? Map.of("channels", channels.stream().map(FibCommands::channel).toList())
              : channel(channels.getFirst());
      Output.structured(c.out(), c.format(), v);
      return;
    }
    for (Channel ch : channels) {
      c.out().printf("Channel %s%n  Subscribers:%n", ch.getName());
      ch.getSubscribersList().forEach(p -> c.out().printf("    %s%n", describe(p)));
      c.out().printf("  Publishers:%n");
      ch.getPublishersList().forEach(p -> c.out().printf("    %s%n", describe(p)));
    }
    c.out().flush();
  }

  private static String protocolName(int p) {
    return switch (p) {
      case 2 -> "kernel";
      case 3 -> "boot";
      case 4 -> "static";
      case 186 -> "bgp";
      case 187 -> "isis";
      case 188 -> "ospf";
      case 189 -> "rip";
      default -> Integer.toString(p);
    };
  }

  @Command(name = "channel", description = "The channels of the FIB daemon")
  static final class ChannelCmd {

    @Command(name = "get", description = "One channel: its subscribers and publishers")
    static final class Get implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(index = "0", description = "channel name")
      String name;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        Channel ch =
            c.call(s -> s.getChannel(GetChannelRequest.newBuilder().setName(name).build()))
                .getChannel();
        printChannels(c, List.of(ch), false);
        return 0;
      }
    }

    @Command(name = "list", description = "Every channel")
    static final class List_ implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        printChannels(
            c,
            c.call(s -> s.listChannel(ListChannelRequest.getDefaultInstance())).getChannelsList(),
            true);
        return 0;
      }
    }

    @Command(
        name = "route",
        description = "The routes a channel selected (lowest administrative distance)")
    static final class RouteCmd implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(index = "0", description = "channel name")
      String name;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        List<Route> routes =
            c.call(s -> s.getRoutes(GetRoutesRequest.newBuilder().setChannel(name).build()))
                .getRoutesList();
        if (c.format() != Output.Format.plain) {
          Output.structured(
              c.out(),
              c.format(),
              Map.of("routes", routes.stream().map(FibCommands::route).toList()));
          return 0;
        }
        List<List<String>> rows = new ArrayList<>();
        for (Route r : routes) {
          rows.add(
              List.of(
                  r.getDestination(),
                  r.getNextHopsList().stream()
                      .map(NextHop::getGateway)
                      .collect(Collectors.joining(",")),
                  protocolName(r.getProtocolValue()),
                  r.getScope().name().toLowerCase(java.util.Locale.ROOT),
                  r.getType().name().toLowerCase(java.util.Locale.ROOT),
                  Integer.toString(r.getAdValue()),
                  Integer.toUnsignedString(r.getPriority())));
        }
        Output.table(
            c.out(),
            List.of("DESTINATION", "NEXT HOPS", "PROTOCOL", "SCOPE", "TYPE", "AD", "PRIORITY"),
            rows);
        return 0;
      }
    }
  }
}
