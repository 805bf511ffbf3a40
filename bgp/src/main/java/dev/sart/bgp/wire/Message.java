package dev.sart.bgp.wire;

/**
 * A BGP message (RFC 4271 §4, RFC 2918). Unknown types never get this far: the framer rejects them
 * (1/3).
 */
public sealed interface Message permits Open, Update, Notification, Keepalive, RouteRefresh {

  /** The message type code of the header. */
  int type();
}
