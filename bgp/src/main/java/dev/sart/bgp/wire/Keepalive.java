package dev.sart.bgp.wire;

/** RFC 4271 §4.4: a KEEPALIVE is the 19-octet header alone. */
public record Keepalive() implements Message {

  public static final Keepalive INSTANCE = new Keepalive();

  @Override
  public int type() {
    return Iana.MessageType.KEEPALIVE;
  }
}
