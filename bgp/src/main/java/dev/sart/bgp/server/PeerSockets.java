package dev.sart.bgp.server;

import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.peer.Sockets;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.UnixChannel;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The options of a session's socket, connected or accepted: reads, buffers, TTL, MD5. */
final class PeerSockets {
  private PeerSockets() {}

  /**
   * One read (up to 64 KiB) per session per turn of its event loop, not Netty's 16: several
   * sessions share a loop (one, when sartd has one CPU), and a peer sending its full table must not
   * hold up the others' OPENs and KEEPALIVEs. With 16, a session's turn decoded up to 1 MiB of
   * UPDATEs, and a second generator's OPEN waited ~1 s in bgperf (b) (tcpdump against sartd's log);
   * with one read, both sessions come up as soon as BIRD's do (testbed/perf/LOG.md).
   */
  static final RecvByteBufAllocator READS =
      new AdaptiveRecvByteBufAllocator().maxMessagesPerRead(1);

  /** The write buffer's marks: a channel above the high one stops the Adj-RIB-Out's drain. */
  static final WriteBufferWaterMark WRITES = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

  /**
   * Connects to {@code peer} on its own event loop; nothing is read before the peer attached its
   * pipeline ({@code initializer}).
   */
  static ChannelFuture connect(Peer peer, ChannelInitializer<Channel> initializer, long localAs) {
    PeerConfig c = peer.config();
    Bootstrap b =
        new Bootstrap()
            .group(peer.loop())
            .channel(EpollSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.AUTO_READ, false)
            .option(ChannelOption.RCVBUF_ALLOCATOR, READS)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.max(1000, c.connectRetryTime().toMillis()))
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITES)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    applyTtl(c, ch, localAs);
                    ch.pipeline().addLast(initializer);
                  }
                });
    if (c.password() != null) {
      b.option(
          EpollChannelOption.TCP_MD5SIG,
          Map.of(c.address(), c.password().getBytes(StandardCharsets.US_ASCII)));
    }
    InetSocketAddress remote = new InetSocketAddress(c.address(), c.port());
    return c.localAddress() == null
        ? b.connect(remote)
        : b.connect(remote, new InetSocketAddress(c.localAddress(), 0));
  }

  /**
   * TTL of what we send: 1 towards a directly connected eBGP peer, the multihop TTL when set, 255
   * with GTSM (RFC 5082 §3), which also drops segments that crossed more hops than allowed.
   */
  static void applyTtl(PeerConfig c, Channel ch, long localAs) {
    int fd = ((UnixChannel) ch).fd().intValue();
    boolean v6 = !(c.address() instanceof Inet4Address);
    boolean external = c.asn() != localAs;
    if (c.ttlSecurity()) {
      int hops = Math.max(1, c.multihopTtl());
      Sockets.setTtl(fd, v6, 255);
      Sockets.setMinTtl(fd, v6, 256 - hops);
    } else if (c.multihopTtl() > 0) {
      Sockets.setTtl(fd, v6, c.multihopTtl());
    } else if (external) {
      Sockets.setTtl(fd, v6, 1);
    }
  }
}
