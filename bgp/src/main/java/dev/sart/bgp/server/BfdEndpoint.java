package dev.sart.bgp.server;

import dev.sart.bgp.bfd.BfdConfig;
import dev.sart.bgp.bfd.BfdPacket;
import dev.sart.bgp.bfd.BfdSession;
import dev.sart.bgp.bfd.BfdState;
import dev.sart.bgp.bfd.BfdStatus;
import dev.sart.bgp.peer.Sockets;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.UnixChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Single-hop BFD (RFC 5881) over UDP for the speaker's peers: the sockets and timers around each
 * {@link BfdSession}. Everything runs on one event loop of its own, so that a loop busy with
 * UPDATEs never delays a packet or a Detection Time (at 100 ms × 3 a 300 ms stall would take
 * sessions down).
 *
 * <p>One socket receives on port 3784 for every session (§4), with a socket filter that drops what
 * did not arrive with TTL 255 (§5, GTSM); each session sends from a socket of its own, bound to a
 * source port in 49152..65535 that stays the same for the session's life (§4), with TTL 255.
 * Packets are matched to a session by Your Discriminator, or by their source address when it is 0
 * (RFC 5880 §6.8.6, RFC 5881 §3).
 */
final class BfdEndpoint implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(BfdEndpoint.class.getName());

  /** RFC 5881 §4. */
  static final int CONTROL_PORT = 3784;

  private static final int SOURCE_PORT_MIN = 49152;
  private static final int SOURCE_PORT_MAX = 65535;

  /** Told of every state change (on the endpoint's loop). */
  interface Listener {
    void changed(InetAddress peer, BfdSession.Change change);
  }

  private final EventLoopGroup group;
  private final EventLoop loop;
  private final Listener listener;
  private final int port;
  private Channel receiver; // on the loop
  private final Map<Integer, Entry> byDiscriminator = new HashMap<>(); // on the loop
  private final Map<InetAddress, Entry> byAddress = new HashMap<>(); // on the loop
  private final Map<InetAddress, BfdStatus> status = new ConcurrentHashMap<>(); // any thread

  /** One session and what drives it (on the loop). */
  private final class Entry {
    final InetAddress peer;
    final InetSocketAddress destination;
    final BfdSession session;
    Channel sender;
    ScheduledFuture<?> transmit;
    ScheduledFuture<?> detection;
    long lastTransmit; // System.nanoTime()
    long downs;
    Instant lastChange = Instant.now();
    boolean closed;

    Entry(InetAddress peer, BfdSession session) {
      this.peer = peer;
      this.session = session;
      this.destination = new InetSocketAddress(peer, port);
    }

    void publish() {
      if (!closed) {
        status.put(peer, BfdStatus.of(session, downs, lastChange));
      }
    }
  }

  /**
   * @param threadFactory makes the endpoint's one thread (tests make it enter a network namespace)
   * @param port the BFD control port to listen on and send to (3784)
   */
  BfdEndpoint(ThreadFactory threadFactory, int port, Listener listener) {
    this.group = new MultiThreadIoEventLoopGroup(1, threadFactory, EpollIoHandler.newFactory());
    this.loop = group.next();
    this.port = port;
    this.listener = listener;
  }

  /** Starts a session towards a directly connected peer (any thread). */
  void add(InetAddress peer, InetAddress local, BfdConfig config) {
    loop.execute(
        () -> {
          if (byAddress.containsKey(peer)) {
            return; // the server keeps one peer per address
          }
          if (receiver == null) {
            listen();
          }
          int discriminator;
          do {
            discriminator = ThreadLocalRandom.current().nextInt();
          } while (discriminator == 0 || byDiscriminator.containsKey(discriminator));
          Entry e = new Entry(peer, new BfdSession(discriminator, config));
          byDiscriminator.put(discriminator, e);
          byAddress.put(peer, e);
          e.publish();
          bindSender(e, local, 0);
        });
  }

  /** Ends a session: one AdminDown packet tells the peer (RFC 5880 §6.8.16), then it is gone. */
  CompletableFuture<Void> remove(InetAddress peer) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(
        () -> {
          Entry e = byAddress.remove(peer);
          status.remove(peer);
          if (e == null) {
            done.complete(null);
            return;
          }
          byDiscriminator.remove(e.session.localDiscriminator());
          e.session.adminDown();
          e.closed = true;
          cancel(e);
          if (e.sender == null) {
            done.complete(null);
            return;
          }
          send(e, false).addListener(w -> e.sender.close().addListener(f -> done.complete(null)));
        });
    return done;
  }

  /** The session's snapshot, or null when the peer has none (any thread). */
  BfdStatus status(InetAddress peer) {
    return status.get(peer);
  }

  private void listen() {
    Bootstrap b =
        new Bootstrap().group(loop).channel(EpollDatagramChannel.class).handler(new Receiver());
    receiver = b.register().channel();
    // the filter is in place before the socket is bound, so no packet passes unchecked
    Sockets.attachFilter(((UnixChannel) receiver).fd().intValue(), GtsmFilter.exactly255());
    receiver
        .bind(new InetSocketAddress(port))
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                LOG.warning(
                    () ->
                        "event=bfd-error reason=cannot-listen port="
                            + port
                            + " cause="
                            + f.cause().getMessage());
              }
            });
  }

  /** RFC 5881 §4: a source port in 49152..65535, the same for the session's life. */
  private void bindSender(Entry e, InetAddress local, int attempt) {
    int sourcePort = ThreadLocalRandom.current().nextInt(SOURCE_PORT_MIN, SOURCE_PORT_MAX + 1);
    Bootstrap b =
        new Bootstrap()
            .group(loop)
            .channel(EpollDatagramChannel.class)
            .handler(new ChannelInboundHandlerAdapter());
    ChannelFuture f =
        local == null
            ? b.bind(new InetSocketAddress(sourcePort))
            : b.bind(new InetSocketAddress(local, sourcePort));
    f.addListener(
        (ChannelFuture done) -> {
          if (e.closed) {
            done.channel().close();
            return;
          }
          if (!done.isSuccess()) {
            if (attempt < 32) {
              bindSender(e, local, attempt + 1);
            } else {
              LOG.warning(
                  () ->
                      "event=bfd-error peer="
                          + e.peer.getHostAddress()
                          + " reason=no-source-port cause="
                          + done.cause().getMessage());
            }
            return;
          }
          e.sender = done.channel();
          int fd = ((UnixChannel) e.sender).fd().intValue();
          // RFC 5881 §5: TTL / hop limit 255 (both: an IPv6 socket sends IPv4 to mapped addresses)
          Sockets.setTtl(fd, false, 255);
          Sockets.setTtl(fd, true, 255);
          transmit(e);
        });
  }

  /** The periodic transmission (RFC 5880 §6.8.7), jittered, scheduled again each time. */
  private void transmit(Entry e) {
    e.transmit = null;
    if (e.closed) {
      return;
    }
    send(e, false);
    scheduleTransmit(e);
  }

  private void scheduleTransmit(Entry e) {
    if (e.transmit != null) {
      e.transmit.cancel(false);
      e.transmit = null;
    }
    if (e.session.transmitInterval() == 0 || e.sender == null) {
      return; // the remote asked for no packets (Required Min RX 0)
    }
    long next =
        e.lastTransmit
            + TimeUnit.MICROSECONDS.toNanos(
                e.session.jitteredTransmitInterval(ThreadLocalRandom.current().nextDouble()));
    long delay = Math.max(0, next - System.nanoTime());
    e.transmit = loop.schedule(() -> transmit(e), delay, TimeUnit.NANOSECONDS);
  }

  private ChannelFuture send(Entry e, boolean fin) {
    byte[] bytes = e.session.packet(fin).toBytes();
    if (!fin) {
      e.lastTransmit = System.nanoTime();
    }
    return e.sender.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(bytes), e.destination));
  }

  private void cancel(Entry e) {
    if (e.transmit != null) {
      e.transmit.cancel(false);
      e.transmit = null;
    }
    if (e.detection != null) {
      e.detection.cancel(false);
      e.detection = null;
    }
  }

  /** RFC 5880 §6.8.6 for what the receive socket reads. */
  private final class Receiver extends SimpleChannelInboundHandler<DatagramPacket> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket msg) {
      BfdPacket p;
      try {
        ByteBuffer bytes = ByteBuffer.allocate(msg.content().readableBytes());
        msg.content().readBytes(bytes);
        p = BfdPacket.decode(bytes.flip());
      } catch (BfdPacket.Malformed m) {
        LOG.fine(() -> "event=bfd-discarded from=" + msg.sender() + " reason=" + m.getMessage());
        return;
      }
      Entry e =
          p.yourDiscriminator() != 0
              ? byDiscriminator.get(p.yourDiscriminator())
              : byAddress.get(BgpServer.normalize(msg.sender().getAddress()));
      if (e == null) {
        return; // "If no session is found, the packet MUST be discarded."
      }
      received(e, p);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warning(() -> "event=bfd-error reason=" + cause);
    }
  }

  private void received(Entry e, BfdPacket p) {
    BfdSession.Received r = e.session.receive(p);
    if (!r.accepted()) {
      return;
    }
    if (r.sendFinal()) {
      if (e.sender != null) {
        send(e, true); // "as soon as practicable, without respect to the transmission timer"
      }
    }
    // §6.8.4: the Detection Time runs from the last packet received
    if (e.detection != null) {
      e.detection.cancel(false);
    }
    long detect = e.session.detectionTime();
    e.detection =
        detect == 0 ? null : loop.schedule(() -> expired(e), detect, TimeUnit.MICROSECONDS);
    if (r.timersChanged()) {
      scheduleTransmit(e);
    }
    if (r.change() != null) {
      changed(e, r.change());
    }
    e.publish();
  }

  private void expired(Entry e) {
    e.detection = null;
    BfdSession.Change c = e.session.detectionTimeExpired();
    if (c != null) {
      changed(e, c);
      scheduleTransmit(e); // back to the slow rate
    }
    e.publish();
  }

  private void changed(Entry e, BfdSession.Change c) {
    e.lastChange = Instant.now();
    if (c.from() == BfdState.UP) {
      e.downs++;
    }
    LOG.info(
        () ->
            "event=bfd-state peer="
                + e.peer.getHostAddress()
                + " from="
                + c.from()
                + " to="
                + c.to()
                + " diag="
                + c.diag()
                + " remote="
                + c.remoteState());
    listener.changed(e.peer, c);
  }

  @Override
  public void close() {
    close(true);
  }

  /**
   * Ends every session, with one AdminDown packet each when {@code adminDown}; without, the
   * sessions just stop, as in a crash, and the peers see them down after their Detection Time.
   */
  void close(boolean adminDown) {
    if (adminDown) {
      CompletableFuture.allOf(
              Map.copyOf(status).keySet().stream()
                  .map(this::remove)
                  .toArray(CompletableFuture[]::new))
          .orTimeout(2, TimeUnit.SECONDS)
          .exceptionally(x -> null)
          .join();
    }
    loop.execute(
        () -> {
          if (receiver != null) {
            receiver.close();
          }
        });
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
