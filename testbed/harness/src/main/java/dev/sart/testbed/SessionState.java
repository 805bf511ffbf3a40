package dev.sart.testbed;

import java.util.Locale;

/**
 * A BGP session's state as RFC 4271 §8.2.2 names them; every driver maps its own words onto these.
 */
public enum SessionState {
  IDLE,
  CONNECT,
  ACTIVE,
  OPEN_SENT,
  OPEN_CONFIRM,
  ESTABLISHED;

  /**
   * Maps the spellings the daemons print ("Established", "OpenSent", "open_confirm", "Active",
   * BIRD's "Passive", GoBGP's "BGP_FSM_ESTABLISHED", ...) onto a state.
   */
  public static SessionState parse(String text) {
    String s = text.toUpperCase(Locale.ROOT).replace("BGP_FSM_", "").replaceAll("[^A-Z]", "");
    return switch (s) {
      case "IDLE", "IDLEADMIN", "DOWN", "START", "CLEARING", "DELETED" -> IDLE;
      case "CONNECT" -> CONNECT;
      // BIRD shows a passive session waiting for the peer's connection as "Passive": RFC 4271's
      // Active
      case "ACTIVE", "PASSIVE" -> ACTIVE;
      case "OPENSENT" -> OPEN_SENT;
      case "OPENCONFIRM" -> OPEN_CONFIRM;
      case "ESTABLISHED", "UP" -> ESTABLISHED;
      default -> throw new IllegalArgumentException("unknown BGP session state '" + text + "'");
    };
  }
}
