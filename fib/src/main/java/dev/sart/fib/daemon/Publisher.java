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

  /**
   * As {@link #reconcile}, but removes nothing that {@code selected} does not name: not every
   * source has said what it has yet (a speaker that restarts gracefully, RFC 4724 §4.1), and what
   * the sink holds from before may still be wanted. A full {@link #reconcile} follows once they
   * have. By default a full one.
   */
  default void reconcileKeeping(Map<IpPrefix, ChannelRoute> selected) {
    reconcile(selected);
  }

  /** Applies changes of the selection (after the first {@link #reconcile}). */
  void apply(List<ChannelRib.Change> changes);

  /** Whether something failed since the last reconcile, so that another one is due. */
  default boolean needsReconcile() {
    return false;
  }

  @Override
  void close();
}
