package dev.sart.bgp.peer;

import dev.sart.bgp.wire.Notification;
import dev.sart.bgp.wire.Update;
import dev.sart.bgp.wire.UpdateError;

/**
 * What RFC 7606 says to do with a decoded UPDATE: reset the session (with this NOTIFICATION), treat
 * its routes as withdrawn, or use it (discarded attributes are already gone).
 */
record UpdateErrorVerdict(Notification reset, boolean treatAsWithdraw) {

  static UpdateErrorVerdict of(Update u) {
    UpdateError worst = null;
    for (UpdateError e : u.errors()) {
      if (worst == null || e.action().compareTo(worst.action()) > 0) {
        worst = e;
      }
    }
    if (worst == null) {
      return new UpdateErrorVerdict(null, false);
    }
    return switch (worst.action()) {
      // we do not keep a session with a family switched off: RFC 7606 §2 allows the reset instead
      case SESSION_RESET, AFI_SAFI_DISABLE -> new UpdateErrorVerdict(worst.notification(), false);
      case TREAT_AS_WITHDRAW -> new UpdateErrorVerdict(null, true);
      case ATTRIBUTE_DISCARD, NONE -> new UpdateErrorVerdict(null, false);
    };
  }
}
