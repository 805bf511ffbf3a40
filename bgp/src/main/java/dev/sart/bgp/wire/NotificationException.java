package dev.sart.bgp.wire;

/**
 * A session-fatal error: the session must send a NOTIFICATION with exactly this code, subcode and
 * data, then close (RFC 4271 §6). Problems an UPDATE can survive are not thrown; they are {@link
 * UpdateError} values inside the decoded {@link Update} (RFC 7606).
 */
public final class NotificationException extends Exception {

  private final int code;
  private final int subcode;
  private final Octets data;

  public NotificationException(int code, int subcode, Octets data, String reason) {
    super(ErrorNames.describe(code, subcode) + ": " + reason, null, false, false);
    this.code = code;
    this.subcode = subcode;
    this.data = data;
  }

  public NotificationException(int code, int subcode, String reason) {
    this(code, subcode, Octets.EMPTY, reason);
  }

  public int code() {
    return code;
  }

  public int subcode() {
    return subcode;
  }

  public Octets data() {
    return data;
  }

  /** The NOTIFICATION to send. */
  public Notification toNotification() {
    return new Notification(code, subcode, data);
  }
}
