package dev.sart.bgp.bfd;

/**
 * One BFD session in Asynchronous mode (RFC 5880 §6.8) as a state machine without I/O and without a
 * clock: the caller feeds it received packets and timer expiries and asks it what to send and when
 * (the timers themselves are the caller's, {@code dev.sart.bgp.server.BfdEndpoint}). Demand mode,
 * the Echo function and authentication are not implemented (all optional, §6.1): we never set D,
 * ask for no echo (Required Min Echo RX Interval 0) and refuse packets with the A bit (§6.8.6).
 *
 * <p>Not thread-safe: one owner (the endpoint's event loop).
 */
public final class BfdSession {
  /** §6.8.3: while the session is not Up, Desired Min TX is at least one second. */
  static final long SLOW_TX_MICROS = 1_000_000;

  /**
   * A state change a call caused.
   *
   * @param remoteState the remote's state as last heard (AdminDown: it took the session down on
   *     purpose, which is no path failure, RFC 5882 §3.2)
   */
  public record Change(BfdState from, BfdState to, int diag, BfdState remoteState) {
    /** Up to anything else, not because the remote went AdminDown: the path failed. */
    public boolean pathFailure() {
      return from == BfdState.UP && remoteState != BfdState.ADMIN_DOWN;
    }
  }

  /**
   * What a received packet did.
   *
   * @param accepted the packet passed §6.8.6's checks and counts for the Detection Time
   * @param change the state change it caused, or null
   * @param sendFinal the packet had the Poll bit: answer at once with the Final bit (§6.8.7)
   * @param timersChanged the transmit interval or the Detection Time may have changed
   */
  public record Received(
      boolean accepted, Change change, boolean sendFinal, boolean timersChanged) {
    static final Received DISCARDED = new Received(false, null, false, false);
  }

  private final BfdConfig config;
  // §6.8.1 state variables
  private BfdState sessionState = BfdState.DOWN;
  private BfdState remoteSessionState = BfdState.DOWN;
  private final int localDiscr;
  private int remoteDiscr;
  private int localDiag = BfdPacket.DIAG_NONE;
  private long desiredMinTxInterval;
  private final long requiredMinRxInterval;
  private long remoteMinRxInterval = 1;
  private int remoteDetectMult;
  // what §6.8.4 needs beyond them: the remote's last Desired Min TX Interval
  private long remoteDesiredMinTx;
  // §6.8.3: a Poll Sequence is in progress (we set P until a packet with F comes)
  private boolean polling;

  public BfdSession(int localDiscr, BfdConfig config) {
    if (localDiscr == 0) {
      throw new IllegalArgumentException("bfd.LocalDiscr must be nonzero (RFC 5880 §6.8.1)");
    }
    this.localDiscr = localDiscr;
    this.config = config;
    this.desiredMinTxInterval = Math.max(SLOW_TX_MICROS, config.minTxMicros());
    this.requiredMinRxInterval = config.minRxMicros();
  }

  public BfdState state() {
    return sessionState;
  }

  public BfdState remoteState() {
    return remoteSessionState;
  }

  public int localDiscriminator() {
    return localDiscr;
  }

  public int remoteDiscriminator() {
    return remoteDiscr;
  }

  public int localDiag() {
    return localDiag;
  }

  public BfdConfig config() {
    return config;
  }

  boolean polling() {
    return polling;
  }

  /**
   * RFC 5880 §6.8.6, from "If the Your Discriminator field is nonzero" on (the checks that need no
   * session are {@link BfdPacket#decode}'s). The caller found this session by Your Discriminator,
   * or, when it is zero, by the packet's source address.
   */
  public Received receive(BfdPacket p) {
    if (p.yourDiscriminator() != 0 && p.yourDiscriminator() != localDiscr) {
      return Received.DISCARDED;
    }
    // "If the Your Discriminator field is zero and the State field is not Down or AdminDown,
    // the packet MUST be discarded."
    if (p.yourDiscriminator() == 0
        && p.state() != BfdState.DOWN
        && p.state() != BfdState.ADMIN_DOWN) {
      return Received.DISCARDED;
    }
    // "If the A bit is set and no authentication is in use (bfd.AuthType is zero), the packet
    // MUST be discarded."
    if (p.authentication()) {
      return Received.DISCARDED;
    }
    long txBefore = transmitInterval();
    long detectBefore = detectionTime();
    remoteDiscr = p.myDiscriminator();
    remoteSessionState = p.state();
    remoteMinRxInterval = p.requiredMinRx();
    remoteDetectMult = p.detectMult();
    remoteDesiredMinTx = p.desiredMinTx();
    // "If a Poll Sequence is being transmitted by the local system and the Final (F) bit in the
    // received packet is set, the Poll Sequence MUST be terminated."
    if (p.fin()) {
      polling = false;
    }
    boolean timersChanged = txBefore != transmitInterval() || detectBefore != detectionTime();
    // "If bfd.SessionState is AdminDown: Discard the packet"
    if (sessionState == BfdState.ADMIN_DOWN) {
      return Received.DISCARDED;
    }
    Change change = null;
    if (p.state() == BfdState.ADMIN_DOWN) {
      if (sessionState != BfdState.DOWN) {
        change = to(BfdState.DOWN, BfdPacket.DIAG_NEIGHBOR_SIGNALED_SESSION_DOWN);
      }
    } else {
      switch (sessionState) {
        case DOWN -> {
          if (p.state() == BfdState.DOWN) {
            change = to(BfdState.INIT, BfdPacket.DIAG_NONE);
          } else if (p.state() == BfdState.INIT) {
            change = to(BfdState.UP, BfdPacket.DIAG_NONE);
          }
        }
        case INIT -> {
          if (p.state() == BfdState.INIT || p.state() == BfdState.UP) {
            change = to(BfdState.UP, BfdPacket.DIAG_NONE);
          }
        }
        case UP -> {
          if (p.state() == BfdState.DOWN) {
            change = to(BfdState.DOWN, BfdPacket.DIAG_NEIGHBOR_SIGNALED_SESSION_DOWN);
          }
        }
        case ADMIN_DOWN -> throw new AssertionError("handled above");
      }
    }
    // Demand mode is never active here (we never set D), so the remote's D bit changes nothing.
    // "If the packet was received with the Poll (P) bit set, ... transmit a BFD Control packet
    // with the Final (F) bit set"
    return new Received(true, change, p.poll(), timersChanged || change != null);
  }

  /**
   * §6.8.4: the Detection Time passed without a packet. In Init or Up the session goes Down with
   * diagnostic 1; in any state bfd.RemoteDiscr is reset (§6.8.1: "MUST be set to zero if the
   * Detection Time passes without the receipt of a valid, authenticated BFD packet").
   */
  public Change detectionTimeExpired() {
    remoteDiscr = 0;
    remoteSessionState = BfdState.DOWN;
    if (sessionState == BfdState.INIT || sessionState == BfdState.UP) {
      return to(BfdState.DOWN, BfdPacket.DIAG_CONTROL_DETECTION_TIME_EXPIRED);
    }
    return null;
  }

  /** §6.8.16: the session is taken down on purpose (peer deleted); the remote sees AdminDown. */
  public Change adminDown() {
    return sessionState == BfdState.ADMIN_DOWN
        ? null
        : to(BfdState.ADMIN_DOWN, BfdPacket.DIAG_ADMINISTRATIVELY_DOWN);
  }

  private Change to(BfdState next, int diag) {
    BfdState from = sessionState;
    sessionState = next;
    localDiag = diag;
    if (next == BfdState.UP) {
      // §6.8.3: the configured Desired Min TX applies once Up; a change of it starts a Poll
      // Sequence. A lower interval may be used at once (sending faster than announced is safe).
      long configured = config.minTxMicros();
      if (configured != desiredMinTxInterval) {
        desiredMinTxInterval = configured;
        polling = true;
      }
    } else if (from == BfdState.UP) {
      desiredMinTxInterval = Math.max(SLOW_TX_MICROS, config.minTxMicros());
      polling = false;
    }
    return new Change(from, next, diag, remoteSessionState);
  }

  /**
   * §6.8.7: the interval between periodic packets before jitter, in microseconds; 0 when the remote
   * asked for none (Required Min RX 0) or we must not send yet.
   */
  public long transmitInterval() {
    if (remoteMinRxInterval == 0) {
      return 0;
    }
    return Math.max(desiredMinTxInterval, remoteMinRxInterval);
  }

  /**
   * §6.8.4, Asynchronous mode: the remote's Detect Mult times the greater of our Required Min RX
   * and its last Desired Min TX, in microseconds; 0 before anything was received.
   */
  public long detectionTime() {
    if (remoteDetectMult == 0) {
      return 0;
    }
    return remoteDetectMult * Math.max(requiredMinRxInterval, remoteDesiredMinTx);
  }

  /**
   * §6.8.7: the periodic interval less a random jitter of 0 to 25 % (10 to 25 % when Detect Mult is
   * 1, so that a single packet's delay cannot make the remote miss its Detection Time).
   *
   * @param random a uniformly distributed value in [0, 1)
   */
  public long jitteredTransmitInterval(double random) {
    long interval = transmitInterval();
    double reduction =
        config.multiplier() == 1 ? 0.10 + 0.15 * random : 0.25 * random; // of the interval
    return (long) (interval * (1 - reduction));
  }

  /**
   * The packet to send (§6.8.7's contents): periodic ({@code fin} false, with P while a Poll
   * Sequence is in progress) or the answer to a Poll ({@code fin} true: "MUST NOT set the Poll (P)
   * bit" in it). C is clear: the session shares fate with the speaker's control plane.
   */
  public BfdPacket packet(boolean fin) {
    return new BfdPacket(
        localDiag,
        sessionState,
        polling && !fin,
        fin,
        false,
        false,
        false,
        false,
        config.multiplier(),
        localDiscr,
        remoteDiscr,
        desiredMinTxInterval,
        requiredMinRxInterval,
        0);
  }

  /**
   * §6.8.7: "A system MUST NOT periodically transmit BFD Control packets if bfd.RemoteDiscr is zero
   * and the system is taking the Passive role." We take the Active role, so we always send, but
   * this tells whether the remote has been heard from.
   */
  public boolean heardFromRemote() {
    return remoteDiscr != 0;
  }
}
