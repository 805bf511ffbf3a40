package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Notification;
import dev.sart.bgp.wire.NotificationException;
import dev.sart.bgp.wire.SessionOptions;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The answer to a connection from a configured neighbour that its FSM cannot take (Idle, or a
 * session that has its connection already): one NOTIFICATION, then the close, never a silent one.
 *
 * <p>RFC 4486 §4: a speaker that "decides to disallow a BGP connection [...] after the speaker
 * accepts a transport protocol connection [...] SHOULD send a NOTIFICATION message with the Error
 * Code Cease and the Error Subcode 'Connection Rejected'". A peer sends its OPEN right after
 * connecting, so what it sent within {@link #GRACE_MILLIS} is read first: a header that is wrong
 * gets the Message Header Error it deserves (RFC 4271 §6.1: 1/1 with no data for a marker that is
 * not all ones, 1/2 with the erroneous length, 1/3 with the erroneous type), anything else (a good
 * message, or nothing) the Cease.
 */
final class Rejection extends ChannelInboundHandlerAdapter {
  /** How long a rejected connection is read before the Cease goes out. */
  static final long GRACE_MILLIS = 250;

  private static final BgpCodec CODEC = new BgpCodec(SessionOptions.DEFAULT);

  private final int ceaseSubcode;
  private final Consumer<Notification> sent;
  private ScheduledFuture<?> grace;
  private boolean answered;

  private Rejection(int ceaseSubcode, Consumer<Notification> sent) {
    this.ceaseSubcode = ceaseSubcode;
    this.sent = sent;
  }

  /**
   * Answers {@code ch} (a connection accepted with auto-read off) and closes it; {@code sent} is
   * told which NOTIFICATION went out (on the channel's loop).
   *
   * @param ceaseSubcode RFC 4486's subcode for the Cease: Connection Rejected (5), or Connection
   *     Collision Resolution (7) against an Established session (RFC 4271 §6.8)
   */
  static void reject(Channel ch, int ceaseSubcode, Consumer<Notification> sent) {
    Rejection r = new Rejection(ceaseSubcode, sent);
    ch.pipeline().addLast("bgp-decoder", new BgpFrameDecoder(CODEC));
    ch.pipeline().addLast("bgp-reject", r);
    ch.eventLoop()
        .execute(
            () -> {
              r.grace =
                  ch.eventLoop()
                      .schedule(
                          () -> r.answer(ch, new Notification(Iana.ErrorCode.CEASE, ceaseSubcode)),
                          GRACE_MILLIS,
                          TimeUnit.MILLISECONDS);
              ch.config().setAutoRead(true);
            });
  }

  /**
   * A connection the FSM cannot take gets a NOTIFICATION, never a silent close ({@link Rejection}):
   * Cease / Connection Collision Resolution against an Established session (RFC 4271 §6.8: the new
   * connection is the one closed), Cease / Connection Rejected otherwise (in Idle, which "refuses
   * all incoming BGP connections", or with a collision tracked already).
   */
  static void reject(Peer peer, Channel ch) {
    State st = peer.primary.session.state();
    int subcode =
        st == State.ESTABLISHED
            ? Iana.ErrorSubcode.CONNECTION_COLLISION_RESOLUTION
            : Iana.ErrorSubcode.CONNECTION_REJECTED;
    int n = ++peer.failures.rejectedInARow;
    reject(
        ch,
        subcode,
        sentNotification -> {
          peer.sent.getAndIncrement(Iana.MessageType.NOTIFICATION);
          Peer.LOG.log(
              FailureLog.oftenRepeated(n)
                  ? java.util.logging.Level.FINE
                  : java.util.logging.Level.INFO,
              () ->
                  "peer="
                      + peer.name()
                      + " event=connection-rejected state="
                      + st
                      + " sent=\""
                      + dev.sart.bgp.wire.ErrorNames.describe(
                          sentNotification.code(), sentNotification.subcode())
                      + "\" rejected-in-a-row="
                      + n);
        });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof BgpFrameDecoder.Malformed m) {
      NotificationException e = m.error();
      answer(ctx.channel(), new Notification(e.code(), e.subcode(), e.data()));
    } else {
      answer(ctx.channel(), new Notification(Iana.ErrorCode.CEASE, ceaseSubcode));
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    answered = true;
    if (grace != null) {
      grace.cancel(false);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    answered = true;
    ctx.close();
  }

  private void answer(Channel ch, Notification n) {
    if (answered) {
      return;
    }
    answered = true;
    if (grace != null) {
      grace.cancel(false);
    }
    sent.accept(n);
    ch.write(Unpooled.wrappedBuffer(CODEC.encode(n)));
    if (ch instanceof io.netty.channel.socket.DuplexChannel d) {
      NotificationClose.close(d); // what the peer sends on is read and dropped
    } else {
      ch.config().setAutoRead(false);
      ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
