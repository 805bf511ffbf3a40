package dev.sart.cni;

/**
 * A CNI error result (CNI spec §"Error"): printed on stdout, the plugin exits with 1.
 *
 * @param code a well-known code (1–99, CNI spec) or one of sart's own (100 and up)
 * @param msg a short message
 * @param details a longer description, or ""
 */
record CniError(int code, String msg, String details) {
  // CNI spec §"Error": well-known error codes
  static final int INCOMPATIBLE_VERSION = 1;
  static final int INVALID_ENVIRONMENT = 4;
  static final int IO_FAILURE = 5;
  static final int DECODE = 6;
  static final int INVALID_NETWORK_CONFIG = 7;
  static final int TRY_AGAIN_LATER = 11;

  /** CNI spec 1.1 §"STATUS": the plugin cannot service ADD requests. */
  static final int NOT_AVAILABLE = 50;

  /** sart: no answer from the agent within the configured {@code timeout} (sart-cni's code 110). */
  static final int TIMEOUT = 110;

  /** The error as the spec's JSON, for a configuration of {@code cniVersion}. */
  byte[] toJson(String cniVersion) {
    StringBuilder sb = new StringBuilder(128).append("{\"cniVersion\":");
    quote(sb, cniVersion);
    sb.append(",\"code\":").append(code).append(",\"msg\":");
    quote(sb, msg);
    if (!details.isEmpty()) {
      sb.append(",\"details\":");
      quote(sb, details);
    }
    return sb.append("}\n").toString().getBytes(Frame.UTF_8);
  }

  static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
