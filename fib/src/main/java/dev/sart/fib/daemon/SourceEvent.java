package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import dev.sart.net.IpPrefix;
import java.util.Collection;
import java.util.List;

/** What a subscriber tells its channel. {@code source} is the subscriber's index in the channel. */
sealed interface SourceEvent {
  int source();

  /** The source now offers this route for its destination (replacing what it offered before). */
  record Update(int source, ChannelRoute route) implements SourceEvent {}

  /** The source no longer offers anything for this destination. */
  record Withdraw(int source, IpPrefix destination) implements SourceEvent {}

  /**
   * Everything the source offers in {@code family}, now: what it offered before and is not in
   * {@code routes} is withdrawn. Sent after a (re)connection's snapshot.
   */
  record Sync(int source, Family family, Collection<ChannelRoute> routes) implements SourceEvent {
    public Sync {
      routes = List.copyOf(routes);
    }
  }
}
