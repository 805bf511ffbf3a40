package dev.sart.bgp.peer;

import io.netty.buffer.Unpooled;
import io.netty.channel.socket.DuplexChannel;
import java.util.concurrent.TimeUnit;

/** How a connection ends after our NOTIFICATION: without losing it to a RST. */
final class NotificationClose {
  private NotificationClose() {}

  /**
   * How long a connection whose NOTIFICATION went out waits for the peer to close it before it is
   * closed anyway.
   */
  static final long LINGER_MILLIS = 2_000;

  /**
   * Closes {@code ch} after a NOTIFICATION without losing it (RFC 4271 §6: the connection is closed
   * right after it is sent): what is queued is flushed, then our side is shut down (a FIN after the
   * NOTIFICATION) while what the peer still sends is read and dropped ({@link Connection} and
   * {@link Rejection} ignore it) until it closes, at most {@link #LINGER_MILLIS}. Closed at once
   * with unread data in its receive queue, the socket would answer with a RST, and the peer's
   * kernel drops what it had not read yet, the NOTIFICATION too: FRR then logged "Connection reset
   * by peer" instead of our Cease.
   */
  static void close(DuplexChannel ch) {
    ch.config().setAutoRead(true);
    ch.writeAndFlush(Unpooled.EMPTY_BUFFER)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                ch.close();
                return;
              }
              ch.shutdownOutput();
              ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            });
  }
}
