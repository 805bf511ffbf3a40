package dev.sart.bgp.fsm;

import java.nio.ByteBuffer;
import java.time.Duration;

/** What the FSM asks the I/O layer to do, in order. */
public sealed interface Action {

  /** "initiates a TCP connection to the other BGP peer". */
  record ConnectTcp() implements Action {}

  /** "drops the TCP connection" (after any NOTIFICATION queued before it has been flushed). */
  record DropTcp() implements Action {}

  /** "initializes all BGP resources" / "completes BGP initialization". */
  record InitializeResources() implements Action {}

  /**
   * "releases all BGP resources"; with {@code deleteRoutes}, also "deletes all routes associated
   * with this connection" (leaving Established).
   */
  record ReleaseResources(boolean deleteRoutes) implements Action {}

  record SendOpen() implements Action {}

  record SendKeepalive() implements Action {}

  /** Sends a NOTIFICATION (RFC 4271 §4.5) with this error code, subcode and data. */
  record SendNotification(int code, int subcode, ByteBuffer data) implements Action {
    public SendNotification {
      data = data.asReadOnlyBuffer();
    }

    public static SendNotification of(int code, int subcode) {
      return new SendNotification(code, subcode, ByteBuffer.allocate(0));
    }
  }

  record StartTimer(Timer timer, Duration duration) implements Action {}

  record StopTimer(Timer timer) implements Action {}

  /** Hand the UPDATE just received to the RIB ("processes the message"). */
  record ProcessUpdate() implements Action {}

  /** The session reached Established: start sending the Adj-RIB-Out. */
  record SessionEstablished(Negotiated negotiated) implements Action {}
}
