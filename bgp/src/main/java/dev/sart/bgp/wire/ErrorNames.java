package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.ErrorCode.*;

/** Human-readable names of NOTIFICATION codes and subcodes, for logs and exception messages. */
public final class ErrorNames {

  private ErrorNames() {}

  /** E.g. {@code "UPDATE Message Error / Malformed AS_PATH (3/11)"}. */
  public static String describe(int code, int subcode) {
    return codeName(code) + " / " + subcodeName(code, subcode) + " (" + code + "/" + subcode + ")";
  }

  public static String codeName(int code) {
    return switch (code) {
      case MESSAGE_HEADER -> "Message Header Error";
      case OPEN_MESSAGE -> "OPEN Message Error";
      case UPDATE_MESSAGE -> "UPDATE Message Error";
      case HOLD_TIMER_EXPIRED -> "Hold Timer Expired";
      case FSM -> "Finite State Machine Error";
      case CEASE -> "Cease";
      case ROUTE_REFRESH_MESSAGE -> "ROUTE-REFRESH Message Error";
      case SEND_HOLD_TIMER_EXPIRED -> "Send Hold Timer Expired";
      default -> "Unknown Error Code";
    };
  }

  public static String subcodeName(int code, int subcode) {
    if (subcode == 0) {
      return "Unspecific";
    }
    String name =
        switch (code) {
          case MESSAGE_HEADER ->
              switch (subcode) {
                case 1 -> "Connection Not Synchronized";
                case 2 -> "Bad Message Length";
                case 3 -> "Bad Message Type";
                default -> null;
              };
          case OPEN_MESSAGE ->
              switch (subcode) {
                case 1 -> "Unsupported Version Number";
                case 2 -> "Bad Peer AS";
                case 3 -> "Bad BGP Identifier";
                case 4 -> "Unsupported Optional Parameter";
                case 6 -> "Unacceptable Hold Time";
                case 7 -> "Unsupported Capability";
                case 11 -> "Role Mismatch";
                default -> null;
              };
          case UPDATE_MESSAGE ->
              switch (subcode) {
                case 1 -> "Malformed Attribute List";
                case 2 -> "Unrecognized Well-known Attribute";
                case 3 -> "Missing Well-known Attribute";
                case 4 -> "Attribute Flags Error";
                case 5 -> "Attribute Length Error";
                case 6 -> "Invalid ORIGIN Attribute";
                case 8 -> "Invalid NEXT_HOP Attribute";
                case 9 -> "Optional Attribute Error";
                case 10 -> "Invalid Network Field";
                case 11 -> "Malformed AS_PATH";
                default -> null;
              };
          case FSM ->
              switch (subcode) {
                case 1 -> "Receive Unexpected Message in OpenSent State";
                case 2 -> "Receive Unexpected Message in OpenConfirm State";
                case 3 -> "Receive Unexpected Message in Established State";
                default -> null;
              };
          case CEASE ->
              switch (subcode) {
                case 1 -> "Maximum Number of Prefixes Reached";
                case 2 -> "Administrative Shutdown";
                case 3 -> "Peer De-configured";
                case 4 -> "Administrative Reset";
                case 5 -> "Connection Rejected";
                case 6 -> "Other Configuration Change";
                case 7 -> "Connection Collision Resolution";
                case 8 -> "Out of Resources";
                case 9 -> "Hard Reset";
                case 10 -> "BFD Down";
                default -> null;
              };
          case ROUTE_REFRESH_MESSAGE -> subcode == 1 ? "Invalid Message Length" : null;
          default -> null;
        };
    return name != null ? name : "Subcode " + subcode;
  }
}
