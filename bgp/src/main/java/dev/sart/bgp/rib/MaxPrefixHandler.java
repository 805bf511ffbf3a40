package dev.sart.bgp.rib;

import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.wire.Family;

/**
 * Told on a RIB shard's thread when a peer's accepted prefixes of a family exceed its limit (once
 * per session and family).
 */
@FunctionalInterface
public interface MaxPrefixHandler {
  void exceeded(RibPeer peer, Family family, long accepted, MaxPrefix limit);
}
