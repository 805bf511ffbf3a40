package dev.sart.bgp.fsm;

import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The inputs of the FSM, numbered as RFC 4271 §8.1 numbers them (plus RFC 9687's send hold timer
 * and our stable-session timer). Event 20 (BGPOpen with DelayOpenTimer running) is not a separate
 * input: the FSM knows whether its DelayOpenTimer runs and treats {@link BgpOpen} accordingly.
 */
public sealed interface Event {

  /** The RFC 4271 §8.1 event number (29 for RFC 9687's SendHoldTimer_Expires, 100+ for ours). */
  int number();

  // §8.1.2 administrative events
  record ManualStart() implements Event {
    public int number() {
      return 1;
    }
  }

  /**
   * Event 2. The NOTIFICATION it sends, where §8.2.2 sends one, is a Cease with this subcode (RFC
   * 4486 §4): Administrative Shutdown by default, Peer De-configured when the peer is deleted,
   * Other Configuration Change when its configuration changed.
   */
  record ManualStop(int ceaseSubcode) implements Event {
    public ManualStop() {
      this(dev.sart.bgp.wire.Iana.ErrorSubcode.ADMINISTRATIVE_SHUTDOWN);
    }

    public int number() {
      return 2;
    }
  }

  record AutomaticStart() implements Event {
    public int number() {
      return 3;
    }
  }

  record ManualStartWithPassiveTcpEstablishment() implements Event {
    public int number() {
      return 4;
    }
  }

  record AutomaticStartWithPassiveTcpEstablishment() implements Event {
    public int number() {
      return 5;
    }
  }

  record AutomaticStartWithDampPeerOscillations() implements Event {
    public int number() {
      return 6;
    }
  }

  record AutomaticStartWithDampPeerOscillationsAndPassiveTcpEstablishment() implements Event {
    public int number() {
      return 7;
    }
  }

  /**
   * Event 8: the system stops the session, e.g. max-prefix exceeded (RFC 4486 Cease subcode 1).
   *
   * @param ceaseSubcode the Cease subcode of the NOTIFICATION sent (RFC 4486 §4)
   * @param data the NOTIFICATION's data (for subcode 1: AFI, SAFI and the prefix upper bound)
   * @param automaticRestart whether the session restarts by itself; false keeps it in Idle until a
   *     start event
   * @param restartAfter when restarting by itself, after this long instead of the IdleHoldTime
   *     (null: the IdleHoldTime)
   */
  record AutomaticStop(
      int ceaseSubcode, ByteBuffer data, boolean automaticRestart, Duration restartAfter)
      implements Event {
    public AutomaticStop {
      data = data.asReadOnlyBuffer();
    }

    /**
     * Cease with this subcode and no data; the session restarts after the IdleHoldTime as after an
     * error.
     */
    public AutomaticStop(int ceaseSubcode) {
      this(ceaseSubcode, ByteBuffer.allocate(0), true, null);
    }

    public int number() {
      return 8;
    }
  }

  // §8.1.3 timer events
  record ConnectRetryTimerExpires() implements Event {
    public int number() {
      return 9;
    }
  }

  record HoldTimerExpires() implements Event {
    public int number() {
      return 10;
    }
  }

  record KeepaliveTimerExpires() implements Event {
    public int number() {
      return 11;
    }
  }

  record DelayOpenTimerExpires() implements Event {
    public int number() {
      return 12;
    }
  }

  record IdleHoldTimerExpires() implements Event {
    public int number() {
      return 13;
    }
  }

  // §8.1.4 TCP connection-based events
  record TcpConnectionValid() implements Event {
    public int number() {
      return 14;
    }
  }

  record TcpCrInvalid() implements Event {
    public int number() {
      return 15;
    }
  }

  record TcpCrAcked() implements Event {
    public int number() {
      return 16;
    }
  }

  record TcpConnectionConfirmed() implements Event {
    public int number() {
      return 17;
    }
  }

  record TcpConnectionFails() implements Event {
    public int number() {
      return 18;
    }
  }

  // §8.1.5 BGP message-based events

  /**
   * Event 19 (or 20 while the DelayOpenTimer runs): a valid OPEN, already negotiated against ours.
   */
  record BgpOpen(Negotiated negotiated) implements Event {
    public int number() {
      return 19;
    }
  }

  /** Event 21: a bad message header; the NOTIFICATION to send (RFC 4271 §6.1). */
  record BgpHeaderErr(int code, int subcode, ByteBuffer data) implements Event {
    public BgpHeaderErr {
      data = data.asReadOnlyBuffer();
    }

    public int number() {
      return 21;
    }
  }

  /** Event 22: a bad OPEN; the NOTIFICATION to send (RFC 4271 §6.2, RFC 5492). */
  record BgpOpenMsgErr(int code, int subcode, ByteBuffer data) implements Event {
    public BgpOpenMsgErr {
      data = data.asReadOnlyBuffer();
    }

    public int number() {
      return 22;
    }
  }

  /** Event 23: connection collision detection (§6.8) chose to close this connection. */
  record OpenCollisionDump() implements Event {
    public int number() {
      return 23;
    }
  }

  record NotifMsgVerErr() implements Event {
    public int number() {
      return 24;
    }
  }

  record NotifMsg() implements Event {
    public int number() {
      return 25;
    }
  }

  record KeepAliveMsg() implements Event {
    public int number() {
      return 26;
    }
  }

  record UpdateMsg() implements Event {
    public int number() {
      return 27;
    }
  }

  /**
   * Event 28: an UPDATE error that resets the session (RFC 7606 leaves few); the NOTIFICATION to
   * send.
   */
  record UpdateMsgErr(int code, int subcode, ByteBuffer data) implements Event {
    public UpdateMsgErr {
      data = data.asReadOnlyBuffer();
    }

    public int number() {
      return 28;
    }
  }

  /** RFC 9687 §3: the peer has not read from us for SendHoldTime. */
  record SendHoldTimerExpires() implements Event {
    public int number() {
      return 29;
    }
  }

  /** Ours: the session stayed Established long enough to forget its oscillation history. */
  record StableTimerExpires() implements Event {
    public int number() {
      return 100;
    }
  }

  /**
   * Ours: a NOTIFICATION Cease / Connection Rejected (RFC 4486 §4) before the peer's OPEN. The peer
   * refused the connection (a speaker in Idle "refuses all incoming BGP connections", RFC 4271
   * §8.2.2) and will connect itself when it leaves Idle; the FSM treats it as a refused connect,
   * not as an error of the session.
   */
  record ConnectionRejected() implements Event {
    public int number() {
      return 101;
    }
  }
}
