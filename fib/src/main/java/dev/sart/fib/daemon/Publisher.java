package dev.sart.fib.daemon;

import dev.sart.net.IpPrefix;
import java.util.List;
import java.util.Map;

/**
 * Where a channel puts its selected routes: kernel tables or a speaker. Called on the channel's
 * thread.
 */
interface Publisher extends AutoCloseable {
  /** Makes the sink hold exactly {@code selected} (at start-up, and again after errors). */
  void reconcile(Map<IpPrefix, ChannelRoute> selected);

  /** Applies changes of the selection (after the first {@link #reconcile}). */
  void apply(List<ChannelRib.Change> changes);

  /** Whether something failed since the last reconcile, so that another one is due. */
  default boolean needsReconcile() {
    return false;
  }

  @Override
  void close();
}
