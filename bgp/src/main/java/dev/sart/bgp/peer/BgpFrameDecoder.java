package dev.sart.bgp.peer;

import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Framer;
import dev.sart.bgp.wire.NotificationException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the TCP stream into BGP messages on their length field and decodes each one; a partial
 * message waits for more bytes (RFC 4271 §4.1). A malformed message becomes a {@link Malformed}
 * carrying the NOTIFICATION to send, and nothing more is read from the connection.
 */
final class BgpFrameDecoder extends ByteToMessageDecoder {
  /** A message the codec rejected. */
  record Malformed(NotificationException error) {}

  private volatile BgpCodec codec;
  private boolean failed;
  private final byte[] header = new byte[Framer.HEADER_LENGTH];

  BgpFrameDecoder(BgpCodec codec) {
    this.codec = codec;
  }

  /** After the OPENs: the negotiated options (4-octet AS, ADD-PATH, extended message, ...). */
  void codec(BgpCodec c) {
    this.codec = c;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (!failed && in.readableBytes() >= Framer.HEADER_LENGTH) {
      BgpCodec c = codec;
      in.getBytes(in.readerIndex(), header);
      try {
        // checks marker, length and type (RFC 4271 §6.1); NEED_MORE means a valid header of a
        // message longer than the header
        c.frameLength(header, 0, Framer.HEADER_LENGTH);
      } catch (NotificationException e) {
        fail(in, out, e);
        return;
      }
      int length = ((header[16] & 0xff) << 8) | (header[17] & 0xff);
      if (in.readableBytes() < length) {
        return;
      }
      byte[] frame = new byte[length];
      in.readBytes(frame);
      try {
        out.add(c.decode(frame, 0, length));
      } catch (NotificationException e) {
        fail(in, out, e);
        return;
      }
    }
  }

  private void fail(ByteBuf in, List<Object> out, NotificationException e) {
    failed = true;
    in.skipBytes(in.readableBytes());
    out.add(new Malformed(e));
  }
}
