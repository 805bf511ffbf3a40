package dev.sart.bgp.server;

import dev.sart.bgp.bfd.BfdStatus;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * The BFD sessions (RFC 5880, single hop: RFC 5881) of the speaker's peers: one endpoint, made with
 * the first peer that wants BFD, a session per peer configured with it, and a path failure it
 * detects handed to that peer (RFC 5882 §3.2, §4.3). Called on the server's management thread; the
 * status from any.
 */
final class PeerBfd {
  private final ThreadFactory threadFactory;
  private final Function<InetAddress, Peer> peers;
  private BfdEndpoint endpoint; // synchronized on this

  /**
   * @param peers the peer at an address, or null (a session may outlive its peer for a moment)
   */
  PeerBfd(ThreadFactory threadFactory, Function<InetAddress, Peer> peers) {
    this.threadFactory = threadFactory;
    this.peers = peers;
  }

  /** The BFD session of the peer at {@code address}, or null when it has none (any thread). */
  BfdStatus status(InetAddress address) {
    BfdEndpoint b = ifAny();
    return b == null ? null : b.status(address);
  }

  /** A new peer at {@code address}: its session, if it is configured with one. */
  void added(InetAddress address, Peer peer) {
    PeerConfig config = peer.config();
    if (config.bfd() != null) {
      BfdEndpoint b = endpoint();
      b.add(address, config.localAddress(), config.bfd());
      peer.bfdStatusFrom(() -> b.status(address));
    }
  }

  /** The peer at {@code address}, configured with {@code config}, is gone: so is its session. */
  CompletableFuture<Void> removed(InetAddress address, PeerConfig config) {
    BfdEndpoint b = ifAny();
    return b == null || config.bfd() == null
        ? CompletableFuture.completedFuture(null)
        : b.remove(address);
  }

  /**
   * The peer at {@code address} was replaced by {@code peer}: its session stays when its settings
   * did not change (removing it sends AdminDown, which FRR's bgpd answers by ending the BGP session
   * the change is replacing); another one replaces it; none is removed or added as configured.
   */
  void replaced(InetAddress address, PeerConfig old, Peer peer) {
    PeerConfig config = peer.config();
    boolean same =
        Objects.equals(old.bfd(), config.bfd())
            && Objects.equals(old.localAddress(), config.localAddress());
    BfdEndpoint b = ifAny();
    if (b != null && old.bfd() != null && !same) {
      b.remove(address)
          .thenRun(
              () -> {
                if (config.bfd() != null) {
                  b.add(address, config.localAddress(), config.bfd());
                }
              });
    } else if (config.bfd() != null && old.bfd() == null) {
      endpoint().add(address, config.localAddress(), config.bfd());
    }
    if (config.bfd() != null) {
      BfdEndpoint now = endpoint();
      peer.bfdStatusFrom(() -> now.status(address));
    }
  }

  /** Ends every session: with AdminDown ({@code adminDown}), or silently as in a crash. */
  void close(boolean adminDown) {
    BfdEndpoint b = ifAny();
    if (b != null) {
      b.close(adminDown);
    }
  }

  private synchronized BfdEndpoint ifAny() {
    return endpoint;
  }

  /**
   * {@code -Dsart.bgp.bfd.port} changes its UDP port (tests that run two speakers in one place).
   */
  private synchronized BfdEndpoint endpoint() {
    if (endpoint == null) {
      endpoint =
          new BfdEndpoint(
              threadFactory,
              Integer.getInteger("sart.bgp.bfd.port", BfdEndpoint.CONTROL_PORT),
              (address, change) -> {
                // RFC 5882 §3.2, §4.3: a session that was Up going down means the path failed,
                // unless the remote took it down on purpose (AdminDown)
                if (change.pathFailure()) {
                  Peer p = peers.apply(address);
                  if (p != null) {
                    p.bfdDown("bfd " + change.to() + " diag " + change.diag());
                  }
                }
              });
    }
    return endpoint;
  }
}
