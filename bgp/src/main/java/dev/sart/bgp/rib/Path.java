package dev.sart.bgp.rib;

/**
 * One path to a prefix in the RIB: who it came from, with which attributes. Kept small (one per
 * route: 32 bytes): nothing else is stored per path.
 *
 * @param source the peer it was learned from ({@link RibPeer#LOCAL} for our own)
 * @param pathId the ADD-PATH identifier it came with (RFC 7911), 0 without ADD-PATH
 * @param attrs the interned attributes
 * @param receivedAtMillis when it was stored (wall clock, for display)
 */
public record Path(RibPeer source, int pathId, Attrs attrs, long receivedAtMillis) {

  public boolean isLocal() {
    return source == RibPeer.LOCAL;
  }
}
