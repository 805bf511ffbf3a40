package dev.sart.agent.chain;

/**
 * A CNI error of a chained plugin (CNI spec §"Error"): the spec's well-known codes and sart's own,
 * the same numbers the agent's {@code sart-cni} errors use.
 */
final class ChainException extends Exception {
  private static final long serialVersionUID = 1L;

  // CNI spec §"Error": well-known error codes
  static final int INCOMPATIBLE_VERSION = 1;
  static final int UNKNOWN_CONTAINER = 3;
  static final int INVALID_ENVIRONMENT = 4;
  static final int DECODE = 6;
  static final int INVALID_NETWORK_CONFIG = 7;

  // sart's agent-side codes: 210 internal, 250 netns, 260 netlink and CHECK mismatches
  static final int INTERNAL = 210;
  static final int NETLINK = 260;

  private final int code;
  private final String details;

  ChainException(int code, String msg, String details) {
    super(msg);
    this.code = code;
    this.details = details == null ? "" : details;
  }

  /** A configuration error: {@code field} named in the message. */
  static ChainException config(String field, String what) {
    return new ChainException(INVALID_NETWORK_CONFIG, "\"" + field + "\" " + what, "");
  }

  /** A CHECK that found the kernel other than ADD left it. */
  static ChainException mismatch(String what) {
    return new ChainException(NETLINK, "CHECK failed: " + what, "");
  }

  int code() {
    return code;
  }

  String details() {
    return details;
  }
}
