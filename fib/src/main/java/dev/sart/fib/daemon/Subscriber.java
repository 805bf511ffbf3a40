package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import java.util.Set;
import java.util.function.Consumer;

/** Where a channel takes routes from: a speaker (watched or pushing) or kernel tables. */
interface Subscriber extends AutoCloseable {
  /** Starts delivering events; never blocks the caller. */
  void start(Consumer<SourceEvent> sink);

  /**
   * The families this source sends a {@link SourceEvent.Sync} for once it has read its source; the
   * channel installs nothing before every source has done so (or the start-up grace passed).
   */
  Set<Family> syncs();

  @Override
  void close();
}
