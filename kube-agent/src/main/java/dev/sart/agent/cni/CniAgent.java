package dev.sart.agent.cni;

import dev.sart.agent.ipam.Allocation;
import dev.sart.agent.ipam.BlockAllocator;
import dev.sart.agent.ipam.Ipam;
import dev.sart.agent.ipam.IpamException;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.logging.Logger;

/**
 * The agent's CNI side, assembled: the allocator over this node's blocks, pod networking, the state
 * read back from the kernel, the UNIX socket for sart-cni, and sart's gRPC CNIApi.
 *
 * <p>Start-up order matters: the kernel is read and the allocations restored before the socket
 * accepts its first request, so an ADD never gets an address a running pod has.
 */
public final class CniAgent implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CniAgent.class.getName());

  private final PodNetwork network;
  private final Ipam ipam;
  private final CniService service;
  private final CniServer server;
  private final Server grpc;
  private final CniTcpServer tcp;
  private final dev.sart.agent.chain.ChainedPlugins chained;

  private CniAgent(
      PodNetwork network,
      Ipam ipam,
      CniService service,
      CniServer server,
      Server grpc,
      CniTcpServer tcp,
      dev.sart.agent.chain.ChainedPlugins chained) {
    this.tcp = tcp;
    this.chained = chained;
    this.network = network;
    this.ipam = ipam;
    this.service = service;
    this.server = server;
    this.grpc = grpc;
  }

  /** Starts with the blocks of the configuration file. */
  public static CniAgent start(AgentConfig config) throws IOException {
    return start(config, new BlockAllocator(config.blocks(), config.defaultPool()));
  }

  /** Starts with {@code ipam} (e.g. this node's AddressBlocks in the cluster). */
  public static CniAgent start(AgentConfig config, Ipam ipam) throws IOException {
    PodNetwork network = new PodNetwork(config);
    // sart-veth and sart-router (issue 27): the same node namespace and node addresses
    dev.sart.agent.chain.ChainedPlugins chained =
        new dev.sart.agent.chain.ChainedPlugins(
            config.hostNetns(),
            java.util.stream.Stream.of(config.nodeAddress4(), config.nodeAddress6())
                .filter(java.util.Objects::nonNull)
                .toList());
    try {
      network.prepare();
      recover(network, ipam);
      CniService service = new CniService(ipam, network);
      service.chained(chained);
      Server grpc = null;
      CniTcpServer tcp = null;
      if (config.grpcAddress() != null) {
        // gRPC on a loopback port of its own; the configured address takes frames and gRPC both
        grpc =
            NettyServerBuilder.forAddress(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(new CniGrpcService(service))
                .build()
                .start();
        try {
          tcp = new CniTcpServer(tcpAddress(config.grpcAddress()), service, grpc.getPort());
        } catch (IOException | RuntimeException e) {
          grpc.shutdownNow();
          throw e;
        }
      }
      CniServer server = new CniServer(config.socket(), service);
      return new CniAgent(network, ipam, service, server, grpc, tcp, chained);
    } catch (IOException | RuntimeException e) {
      network.close();
      chained.close();
      throw e;
    }
  }

  /** Restores the allocations recorded in the kernel (host veth aliases and table routes). */
  static int recover(PodNetwork network, Ipam ipam) {
    int restored = 0;
    for (PodNetwork.Found f : network.scan()) {
      Allocation a = new Allocation(f.recorded().attachment(), f.recorded().pool(), f.addresses());
      try {
        ipam.restore(a);
        restored++;
      } catch (IpamException e) {
        if (e.getMessage().contains("taken twice")) {
          LOG.warning("removing " + f.hostName() + ": " + e.getMessage());
          network.discard(f);
        } else {
          LOG.warning(
              "pod interface " + f.hostName() + " kept but not restored: " + e.getMessage());
        }
      }
    }
    int n = restored;
    LOG.info(() -> "pod allocations restored from the kernel count=" + n);
    return restored;
  }

  public CniService service() {
    return service;
  }

  public List<Allocation> allocations() {
    return ipam.allocations();
  }

  /**
   * The TCP port of {@code grpcAddress} (sart-cni's frames and sart's gRPC CNIApi), or -1 when
   * there is none.
   */
  public int grpcPort() {
    return tcp == null ? -1 : tcp.port();
  }

  /**
   * Counts CNI calls in {@code registry} under sart's names ({@link CniMetrics}); returns what
   * brings the pool gauges up to date, to run before each scrape.
   */
  public Runnable metrics(io.micrometer.core.instrument.MeterRegistry registry) {
    CniMetrics m = new CniMetrics(registry, service.ipam());
    service.metrics(m);
    return m::refresh;
  }

  /** {@code host:port} or {@code [v6]:port}; a mistake names the address. */
  static InetSocketAddress tcpAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try {
      String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
      return new InetSocketAddress(
          host.isEmpty() ? "0.0.0.0" : host, Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "CNI endpoint '" + hostPort + "' is not host:port (127.0.0.1:6000) or a socket path");
    }
  }

  @Override
  public void close() throws IOException {
    try {
      server.close();
      if (tcp != null) {
        tcp.close();
      }
    } finally {
      if (grpc != null) {
        grpc.shutdownNow();
      }
      network.close();
      chained.close();
    }
  }
}
