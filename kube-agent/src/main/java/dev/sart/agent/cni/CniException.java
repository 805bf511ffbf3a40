package dev.sart.agent.cni;

/**
 * A CNI error (CNI spec §"Error"): a well-known code 1–99 or one of sart's own (100 and up), a
 * message and details. The server prints it as the spec's error JSON and exits with 1.
 */
public final class CniException extends Exception {
  private static final long serialVersionUID = 1L;

  // CNI spec §"Error": well-known error codes
  public static final int INCOMPATIBLE_VERSION = 1;
  public static final int UNSUPPORTED_FIELD = 2;
  public static final int UNKNOWN_CONTAINER = 3;
  public static final int INVALID_ENVIRONMENT = 4;
  public static final int IO_FAILURE = 5;
  public static final int DECODE = 6;
  public static final int INVALID_NETWORK_CONFIG = 7;
  public static final int TRY_AGAIN_LATER = 11;

  /** CNI spec 1.1 §"STATUS": the plugin cannot service ADD requests. */
  public static final int NOT_AVAILABLE = 50;

  // sart's agent-side codes (sart: 200 Kubernetes, 210 internal, 220 allocator, 230 network
  // config, 240 IPAM, 250 netns, 260 netlink)
  public static final int INTERNAL = 210;
  public static final int ALLOCATOR = 220;
  public static final int IPAM = 240;
  public static final int NETNS = 250;
  public static final int NETLINK = 260;

  private final int code;
  private final String details;

  public CniException(int code, String msg, String details) {
    super(msg);
    this.code = code;
    this.details = details == null ? "" : details;
  }

  public int code() {
    return code;
  }

  public String details() {
    return details;
  }
}
