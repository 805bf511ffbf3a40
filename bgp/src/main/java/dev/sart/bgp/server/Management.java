package dev.sart.bgp.server;

import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.Sockets;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.unix.UnixChannel;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one owner of a {@link BgpServer}'s management (issue 23 §4): adding and deleting peers, the
 * local AS, router id and multipath, and the listener's MD5 keys and GTSM filter they imply, run
 * one at a time on one thread ({@code bgp-management}), whoever calls (the gRPC handlers' virtual
 * threads, the config file, tests), so a check and the change it guards are one step and the keys
 * applied are those of the last change.
 */
final class Management implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(BgpServer.class.getName());

  private volatile Thread thread;

  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = Thread.ofVirtual().name("bgp-management").unstarted(r);
            thread = t;
            return t;
          });

  /**
   * Runs {@code task} on the management thread and returns its result (or throws its error); at
   * once when called from that thread.
   */
  <T> T call(Callable<T> task) {
    if (Thread.currentThread() == thread) {
      try {
        return task.call();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    try {
      return executor.submit(task).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  void run(Runnable task) {
    call(
        () -> {
          task.run();
          return null;
        });
  }

  /** Queues {@code task} without waiting; a failure is logged ({@code what}). */
  void later(String what, Runnable task) {
    executor.execute(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, what, e);
          }
        });
  }

  /**
   * RFC 2385: the listener accepts only correctly signed SYNs from peers with a password; RFC 5082
   * §3: it drops a GTSM peer's segments (its SYN too) that crossed too many hops. Computed from
   * {@code peers} as they are now; only on the management thread, so the last change's set is the
   * one applied.
   */
  void applyListenerKeys(Channel listener, Collection<Peer> peers) {
    if (listener == null) {
      return;
    }
    assert Thread.currentThread() == thread : "listener keys off the management thread";
    Map<InetAddress, Integer> minTtl = new HashMap<>();
    Map<InetAddress, byte[]> keys = new HashMap<>();
    for (Peer p : peers) {
      if (p.config().ttlSecurity()) {
        minTtl.put(
            BgpServer.normalize(p.config().address()), 256 - Math.max(1, p.config().multihopTtl()));
      }
      if (p.config().password() != null) {
        keys.put(p.config().address(), p.config().password().getBytes(StandardCharsets.US_ASCII));
      }
    }
    Sockets.attachFilter(((UnixChannel) listener).fd().intValue(), GtsmFilter.program(minTtl));
    listener.config().setOption(EpollChannelOption.TCP_MD5SIG, keys);
  }

  @Override
  public void close() {
    executor.shutdown();
  }
}
