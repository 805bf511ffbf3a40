package dev.sart.bgp.wire;

/**
 * One problem found in a received UPDATE and how RFC 7606 says to handle it. The decoded {@link
 * Update} carries a list of these; {@link Update#action()} is the strongest.
 *
 * @param action what the receiver must do
 * @param typeCode the attribute concerned, or 0 when the problem is not in one attribute
 * @param subcode the UPDATE Message Error subcode (RFC 4271 §6.3) that names the problem; it goes
 *     into the NOTIFICATION when the action is a session reset
 * @param data the NOTIFICATION data RFC 4271 §6.3 prescribes for that subcode
 * @param family the family to disable for {@link Action#AFI_SAFI_DISABLE}, else null
 * @param reason for logs
 */
public record UpdateError(
    Action action, int typeCode, int subcode, Octets data, Family family, String reason) {

  /** RFC 7606 §2 and §3 (f): the approaches, weakest first. */
  public enum Action {
    /** Nothing to do. */
    NONE,
    /** RFC 7606 §2: drop the attribute, use the rest of the UPDATE. */
    ATTRIBUTE_DISCARD,
    /**
     * RFC 7606 §2: withdraw every route of the UPDATE (NLRI and MP_REACH_NLRI), as if they had been
     * withdrawn.
     */
    TREAT_AS_WITHDRAW,
    /** RFC 4760 §7, RFC 7606 §2: stop using the family on this session (or reset it). */
    AFI_SAFI_DISABLE,
    /** RFC 4271 §6: send the NOTIFICATION and close. */
    SESSION_RESET;

    public Action max(Action other) {
      return compareTo(other) >= 0 ? this : other;
    }
  }

  /** The NOTIFICATION for a session reset (and for an AFI/SAFI disable done as a reset). */
  public Notification notification() {
    return new Notification(Iana.ErrorCode.UPDATE_MESSAGE, subcode, data);
  }
}
