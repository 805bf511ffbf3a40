package dev.sart.bgp.wire;

/** UPDATE bodies onto the wire (RFC 4271 §4.3); the codec writes the header around them. */
final class UpdateEncoder {

  private UpdateEncoder() {}

  static void encode(Update update, SessionOptions options, WireWriter out) {
    boolean v4PathIds = options.addPathSend().contains(Family.IPV4_UNICAST);
    int withdrawnAt = out.reserve(2);
    NlriCodec.encode(update.withdrawn(), v4PathIds, out);
    putLength(out, withdrawnAt);
    int attributesAt = out.reserve(2);
    AttributeEncoder.encodeAll(update.attributes(), options, out);
    putLength(out, attributesAt);
    NlriCodec.encode(update.nlri(), v4PathIds, out);
  }

  private static void putLength(WireWriter out, int at) {
    int length = out.length() - at - 2;
    if (length > 0xffff) {
      throw new IllegalArgumentException("UPDATE field longer than 65535 octets");
    }
    out.putU16(at, length);
  }
}
