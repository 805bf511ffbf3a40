package dev.sart.bgp.wire;

/**
 * A block of NLRI of one family, packed: one object per block, never one per prefix. IPv4 and IPv6
 * prefixes (RFC 4271 §4.3, RFC 4760 §5, RFC 7911 §3 path identifiers) are unpacked into primitive
 * arrays; other families are kept as octets.
 */
public sealed interface Nlri permits Ipv4Prefixes, Ipv6Prefixes, OpaqueNlri {

  /** The number of entries; 0 for an opaque block. */
  int size();

  boolean isEmpty();
}
