package dev.sart.bgp.fsm;

import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.NotificationException;
import dev.sart.bgp.wire.Octets;
import dev.sart.bgp.wire.Update;
import dev.sart.bgp.wire.UpdateError;
import java.nio.ByteBuffer;

/**
 * The one place where a problem with what the peer sent becomes what the FSM sees: the event (RFC
 * 4271 §8.1.5) with the NOTIFICATION to send, or for an UPDATE the RFC 7606 outcome.
 *
 * <ul>
 *   <li>A message the framer or the codec rejects, and an OPEN the checks refuse, arrive as a
 *       {@link NotificationException} with the code, subcode and data the RFCs prescribe; {@link
 *       #of(NotificationException)} picks the event by code: Message Header Error (§6.1) →
 *       BGPHeaderErr (event 21), OPEN Message Error (§6.2) → BGPOpenMsgErr (22), UPDATE Message
 *       Error (§6.3) → UpdateMsgErr (28). RFC 7313 §5's ROUTE-REFRESH Message Error has no event of
 *       its own: it goes as event 21, which ends the session with the NOTIFICATION it carries in
 *       every state, as §5 asks.
 *   <li>An UPDATE never throws ({@link Update#errors()}); {@link #of(Update)} takes its strongest
 *       RFC 7606 action: session reset (and AFI/SAFI disable, which we do as a reset, RFC 7606 §2
 *       allows it) → UpdateMsgErr with the first such error's NOTIFICATION; treat-as-withdraw →
 *       UpdateMsg with the routes withdrawn; attribute discard (done by the decoder) or nothing →
 *       UpdateMsg.
 * </ul>
 */
public final class ReceiveErrors {
  private ReceiveErrors() {}

  /**
   * What a received message means for the session.
   *
   * @param event the FSM event to feed
   * @param treatAsWithdraw for an UPDATE taken: its routes are to be withdrawn (RFC 7606 §2)
   */
  public record Outcome(Event event, boolean treatAsWithdraw) {}

  private static final Outcome USE = new Outcome(new Event.UpdateMsg(), false);
  private static final Outcome WITHDRAW = new Outcome(new Event.UpdateMsg(), true);

  /** A session-fatal error: the event that carries its NOTIFICATION. */
  public static Outcome of(NotificationException e) {
    return new Outcome(event(e.code(), e.subcode(), e.data()), false);
  }

  /** A decoded UPDATE (RFC 7606): taken as it is, its routes withdrawn, or the session reset. */
  public static Outcome of(Update u) {
    if (u.errors().isEmpty()) {
      return USE; // the common case allocates nothing
    }
    UpdateError worst = null;
    for (UpdateError e : u.errors()) {
      if (worst == null || e.action().compareTo(worst.action()) > 0) {
        worst = e;
      }
    }
    return switch (worst.action()) {
      case SESSION_RESET, AFI_SAFI_DISABLE ->
          new Outcome(event(Iana.ErrorCode.UPDATE_MESSAGE, worst.subcode(), worst.data()), false);
      case TREAT_AS_WITHDRAW -> WITHDRAW;
      case ATTRIBUTE_DISCARD, NONE -> USE;
    };
  }

  private static Event event(int code, int subcode, Octets data) {
    ByteBuffer d = ByteBuffer.wrap(data.toByteArray());
    return switch (code) {
      case Iana.ErrorCode.OPEN_MESSAGE -> new Event.BgpOpenMsgErr(code, subcode, d);
      case Iana.ErrorCode.UPDATE_MESSAGE -> new Event.UpdateMsgErr(code, subcode, d);
      default -> new Event.BgpHeaderErr(code, subcode, d);
    };
  }
}
