package dev.sart.bgp.bfd;

import java.time.Instant;

/**
 * A snapshot of one BFD session for the API, the CLI and metrics.
 *
 * @param state bfd.SessionState
 * @param remoteState bfd.RemoteSessionState
 * @param localDiag bfd.LocalDiag (why the session last went down)
 * @param localDiscriminator bfd.LocalDiscr
 * @param remoteDiscriminator bfd.RemoteDiscr (0 until heard from)
 * @param transmitIntervalMicros the negotiated interval of our periodic packets, before jitter
 * @param detectionTimeMicros the negotiated Detection Time (§6.8.4), 0 until heard from
 * @param downs how often the session went from Up to something else
 * @param lastChange when the state last changed
 */
public record BfdStatus(
    BfdState state,
    BfdState remoteState,
    int localDiag,
    int localDiscriminator,
    int remoteDiscriminator,
    long transmitIntervalMicros,
    long detectionTimeMicros,
    long downs,
    Instant lastChange) {

  /** The snapshot of this session now. */
  public static BfdStatus of(BfdSession s, long downs, Instant lastChange) {
    return new BfdStatus(
        s.state(),
        s.remoteState(),
        s.localDiag(),
        s.localDiscriminator(),
        s.remoteDiscriminator(),
        s.transmitInterval(),
        s.detectionTime(),
        downs,
        lastChange);
  }
}
