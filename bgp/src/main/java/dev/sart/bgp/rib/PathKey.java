package dev.sart.bgp.rib;

/**
 * One path of a prefix as sent with ADD-PATH (RFC 7911 §3): the prefix and the Path Identifier we
 * gave the path towards one peer.
 *
 * @param prefix the prefix
 * @param pathId our Path Identifier for the path, unique per prefix towards that peer (RFC 7911 §3)
 */
public record PathKey(Prefix prefix, int pathId) {}
