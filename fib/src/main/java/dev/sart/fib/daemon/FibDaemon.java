package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.proto.LocalEndpoints;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.logging.Logger;

/**
 * {@code sartd fib}: the channels of a {@link FibConfig} and the {@code FibManagerApi} at its
 * endpoint. Kernel tables are those of {@code netns} (the caller's namespace when null).
 */
public final class FibDaemon implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(FibDaemon.class.getName());

  /**
   * @param grace how long a channel waits for every subscriber's first snapshot before it
   *     reconciles its publishers with what it has
   * @param retry how soon a publisher that saw errors is reconciled again
   */
  public record Options(Duration grace, Duration retry) {
    public static final Options DEFAULT =
        new Options(Duration.ofSeconds(30), Duration.ofSeconds(5));
  }

  private final List<Channel> channels = new ArrayList<>();
  private final List<Server> servers = new ArrayList<>();
  private final Map<String, ManagedChannel> speakers = new HashMap<>();

  private FibDaemon() {}

  public static FibDaemon start(
      FibConfig config, MeterRegistry registry, Netns netns, Options options) {
    FibDaemon d = new FibDaemon();
    try {
      d.build(config, new FibMetrics(registry), netns, options);
      d.servers.add(
          serve(
              config.endpoint(),
              new FibManagerService(
                  d.channels, () -> netns == null ? Netlink.open() : Netlink.open(netns))));
      d.channels.forEach(Channel::start);
      LOG.info(
          () ->
              "event=fib-started endpoint="
                  + config.endpoint()
                  + " channels="
                  + d.channels.size()
                  + " route_protocol="
                  + config.routeProtocol());
      return d;
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
  }

  private void build(FibConfig config, FibMetrics metrics, Netns netns, Options options) {
    for (FibConfig.ChannelConfig c : config.channels()) {
      List<Subscriber> subs = new ArrayList<>();
      for (int i = 0; i < c.subscribers().size(); i++) {
        FibConfig.Endpoint e = c.subscribers().get(i);
        subs.add(
            switch (e.protocol()) {
              case bgp ->
                  e.mode() == FibConfig.Mode.push
                      ? new FibApiSubscriber(i, e.endpoint(), c.families())
                      : new BgpWatchSubscriber(
                          i, e.endpoint(), c.families(), speaker(e.endpoint()));
              case kernel ->
                  new KernelSubscriber(i, e.tables(), c.families(), config.routeProtocol(), netns);
            });
      }
      List<Publisher> pubs = new ArrayList<>();
      for (FibConfig.Endpoint e : c.publishers()) {
        pubs.add(
            switch (e.protocol()) {
              case kernel ->
                  new KernelPublisher(
                      c.name(),
                      c.families(),
                      e.tables(),
                      config.routeProtocol(),
                      netns == null ? Netlink.open() : Netlink.open(netns),
                      metrics);
              case bgp -> new BgpPublisher(c.name(), e.endpoint(), speaker(e.endpoint()), metrics);
            });
      }
      Channel ch = new Channel(c, subs, pubs, options.grace(), options.retry(), metrics);
      channels.add(ch);
      for (Subscriber s : subs) {
        if (s instanceof FibApiSubscriber push) {
          servers.add(serve(push.endpoint(), new FibApiService(push, ch)));
        }
      }
    }
  }

  private ManagedChannel speaker(String endpoint) {
    // no keep-alive pings: a gRPC server refuses them more often than every 5 minutes by default
    // in process when the speaker runs in this JVM (sartd node; LocalEndpoints)
    return speakers.computeIfAbsent(
        endpoint,
        ep ->
            LocalEndpoints.channel(
                ep, () -> NettyChannelBuilder.forAddress(address(ep)).usePlaintext().build()));
  }

  static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
    InetAddress a;
    try {
      a = InetAddress.getByName(host);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot resolve '" + host + "' of " + hostPort, e);
    }
    return new InetSocketAddress(a, Integer.parseInt(hostPort.substring(colon + 1)));
  }

  private static Server serve(String endpoint, io.grpc.BindableService service) {
    try {
      return NettyServerBuilder.forAddress(address(endpoint))
          .addService(service)
          .executor(Executors.newVirtualThreadPerTaskExecutor())
          .build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve on " + endpoint + ": " + e.getMessage(), e);
    }
  }

  /** The port the FibManagerApi listens on (the endpoint's, or the one chosen for port 0). */
  public int managerPort() {
    return servers.getFirst().getPort();
  }

  /** The names of the channels, in configuration order. */
  public List<String> channelNames() {
    return channels.stream().map(Channel::name).toList();
  }

  /** Whether every channel has reconciled its publishers once. */
  public boolean ready() {
    return channels.stream().allMatch(Channel::ready);
  }

  @Override
  public void close() {
    servers.forEach(Server::shutdownNow);
    channels.forEach(Channel::close);
    speakers.values().forEach(ManagedChannel::shutdownNow);
  }
}
