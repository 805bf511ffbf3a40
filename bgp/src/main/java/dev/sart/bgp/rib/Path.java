package dev.sart.bgp.rib;

/**
 * One path to a prefix in the RIB: who it came from, with which attributes. Kept small, one per
 * route: 24 bytes with compact object headers ({@code sartd/jvm.options}), nothing else stored.
 *
 * @param source the peer it was learned from ({@link RibPeer#LOCAL} for our own)
 * @param pathId the ADD-PATH identifier it came with (RFC 7911), 0 without ADD-PATH
 * @param attrs the interned attributes
 * @param receivedAt when it was stored, in seconds since the epoch, unsigned (wall clock, for
 *     display)
 */
public record Path(RibPeer source, int pathId, Attrs attrs, int receivedAt) {

  public boolean isLocal() {
    return source == RibPeer.LOCAL;
  }

  /** When it was stored, in milliseconds since the epoch (whole seconds). */
  public long receivedAtMillis() {
    return Integer.toUnsignedLong(receivedAt) * 1000;
  }

  /** The current time as {@link #receivedAt} counts it. */
  static int now() {
    return (int) (System.currentTimeMillis() / 1000);
  }
}
