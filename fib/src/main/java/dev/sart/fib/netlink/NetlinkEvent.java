package dev.sart.fib.netlink;

/**
 * A change the kernel announced on an rtnetlink multicast group. {@link Change#NEW} is an RTM_NEW*
 * message (an object added or changed), {@link Change#DELETE} an RTM_DEL* one.
 */
public sealed interface NetlinkEvent {
  /** Whether the object was added or changed, or removed. */
  enum Change {
    NEW,
    DELETE
  }

  record LinkEvent(Change change, Link link) implements NetlinkEvent {}

  record AddressEvent(Change change, Address address) implements NetlinkEvent {}

  record RouteEvent(Change change, Route route) implements NetlinkEvent {}

  record NeighborEvent(Change change, Neighbor neighbor) implements NetlinkEvent {}

  record RuleEvent(Change change, Rule rule) implements NetlinkEvent {}

  /**
   * Events were lost: the socket's receive buffer overflowed (ENOBUFS). What the subscriber knows
   * may be stale; it should read the current state again with a dump.
   */
  record Overrun() implements NetlinkEvent {}
}
