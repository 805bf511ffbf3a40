package dev.sart.bgp.peer;

import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Notification;
import dev.sart.bgp.wire.Open;

/**
 * RFC 8538, graceful restart after a NOTIFICATION. When both OPENs' graceful restart capabilities
 * carry the N bit (§2), a session that ends with a NOTIFICATION, sent or received, other than a
 * Cease / Hard Reset is treated as one whose TCP connection failed (§4: the receiving speaker keeps
 * the routes, stale, RFC 4724 §4.2); and what is meant to end the session for good goes out as a
 * Hard Reset (§3, §5.1), which both sides treat as before RFC 8538: the routes go.
 */
final class GracefulNotification {
  private GracefulNotification() {}

  /** §2: both OPENs carried the graceful restart capability with the N bit. */
  static boolean negotiated(Open ours, Open theirs) {
    return notificationBit(ours) && notificationBit(theirs);
  }

  private static boolean notificationBit(Open o) {
    Capability.GracefulRestart gr = o == null ? null : Connection.gracefulRestart(o);
    return gr != null && gr.notificationSupported();
  }

  /**
   * §5.1: the Cease subcodes that end a session for good, sent as a Hard Reset — Maximum Number of
   * Prefixes Reached (MUST), Administrative Shutdown and Peer De-configured (SHOULD; our ManualStop
   * and a deleted peer), Administrative Reset (MAY; an operator's reset means "start afresh", as
   * FRR's default {@code bgp hard-administrative-reset} reads it) — and BFD Down (RFC 9384): the
   * forwarding path is gone, so keeping the routes would send traffic into it. The others (Hold
   * Timer Expired, UPDATE errors, Other Configuration Change, ...) stay graceful.
   */
  static boolean endsForGood(int code, int subcode) {
    return code == Iana.ErrorCode.CEASE
        && switch (subcode) {
          case Iana.ErrorSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
              Iana.ErrorSubcode.ADMINISTRATIVE_SHUTDOWN,
              Iana.ErrorSubcode.PEER_DE_CONFIGURED,
              Iana.ErrorSubcode.ADMINISTRATIVE_RESET,
              Iana.ErrorSubcode.HARD_RESET,
              Iana.ErrorSubcode.BFD_DOWN ->
              true;
          default -> false;
        };
  }

  /**
   * What goes out for {@code n}: a Hard Reset carrying it when §5.1 says so and N was exchanged.
   */
  static Notification toSend(Notification n, boolean negotiated) {
    return negotiated && !n.isHardReset() && endsForGood(n.code(), n.subcode())
        ? Notification.hardReset(n)
        : n;
  }

  /**
   * §4: whether a session that ended with {@code n} (sent or received; null: none, its TCP
   * connection failed) is a restart for the receiving speaker.
   */
  static boolean restarting(Notification n, boolean negotiated) {
    return n == null || (negotiated && !n.isHardReset());
  }
}
