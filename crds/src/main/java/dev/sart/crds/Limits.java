package dev.sart.crds;

/**
 * The bounds ({@code maxItems}, {@code maxProperties}, {@code maxLength}) of the CRD schemas. A
 * real API server estimates the cost of every CEL rule from them and refuses a CRD whose rules
 * could cost too much; each limit is far above what a cluster uses (crds/README.md, "Limits").
 */
public final class Limits {
  private Limits() {}

  /** An object name (DNS subdomain, RFC 1123): BGPPeer, NodeBGP, template, pool, node. */
  public static final long NAME = 253;

  /** A label value (the peer groups, selector values). */
  public static final long LABEL_VALUE = 63;

  /** The longest IPv6 text (IPv4-mapped with a zone would not be a peer address). */
  public static final long IP = 45;

  /** A Linux interface name (IFNAMSIZ is 16 with the terminating NUL). */
  public static final long INTERFACE = 15;

  /** What the kernel refuses in an interface name: '/', ':' (alias syntax) and whitespace. */
  public static final String INTERFACE_REGEX = "^[^/:\\s]+$";

  /** An IPv6 address and a prefix length, with room. */
  public static final long CIDR = 64;

  /** Peers of one ClusterBGP (a node peers with a handful of ToRs or route servers). */
  public static final long CLUSTER_PEERS = 64;

  /** Peers of one node: those of every ClusterBGP that selects it plus hand-made BGPPeers. */
  public static final long NODE_PEERS = 256;

  /** Labels in a node selector. */
  public static final long SELECTOR = 64;

  /** BGP capabilities named on a peer. */
  public static final long CAPABILITIES = 32;

  /** Peer groups of one peer. */
  public static final long GROUPS = 32;

  /** Attributes of an advertisement, communities of a pool. */
  public static final long ATTRS = 32;

  /** One community in MetalLB's syntax: {@code large:} and three 10-digit numbers. */
  public static final long COMMUNITY = 48;

  /** One item of {@code spec.attrs}: {@code large_community=} and three 10-digit numbers. */
  public static final long ATTR = 64;

  /** Destinations of one Egress (coil sets no bound; routes per client pod grow with it). */
  public static final long EGRESS_DESTINATIONS = 128;

  /** Reverse-path ports of one Egress's static address. */
  public static final long EGRESS_PORTS = 64;

  /** Namespaces an egress pool is bound to. */
  public static final long POOL_NAMESPACES = 256;
}
