package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import dev.sart.net.IpPrefix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One channel: its subscribers feed a queue, one platform thread (netlink calls block) owns the
 * {@link ChannelRib} and drives the publishers. Nothing is published before every subscriber has
 * delivered its first snapshot (or {@code grace} has passed): then each publisher reconciles its
 * sink with the whole selection, and from there on gets the changes. A publisher that saw errors is
 * reconciled again after {@code retry}.
 */
final class Channel implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Channel.class.getName());

  /** Changes taken from the queue at once, so that a burst becomes few netlink batches. */
  private static final int DRAIN = 4096;

  private final FibConfig.ChannelConfig config;
  private final List<Subscriber> subscribers;
  private final List<Publisher> publishers;
  private final Duration grace;
  private final Duration retry;
  private final BlockingQueue<SourceEvent> queue = new LinkedBlockingQueue<>();
  private final ChannelRib rib;

  /** The selection as the API sees it (the owner thread writes it). */
  private final Map<IpPrefix, ChannelRoute> view = new ConcurrentHashMap<>();

  private final Set<Long> awaitingSync = new HashSet<>();
  private volatile boolean running = true;
  private volatile boolean ready;

  /**
   * Reconciled at the grace's end without every source's snapshot: what the kernel held stayed, and
   * a full reconcile is due once the last snapshot is in (owner thread).
   */
  private boolean partial;

  /** A publisher threw: every publisher is reconciled after {@code retry}. */
  private boolean broken;

  private Thread owner;

  Channel(
      FibConfig.ChannelConfig config,
      List<Subscriber> subscribers,
      List<Publisher> publishers,
      Duration grace,
      Duration retry,
      FibMetrics metrics) {
    this.config = config;
    this.subscribers = List.copyOf(subscribers);
    this.publishers = List.copyOf(publishers);
    this.grace = grace;
    this.retry = retry;
    this.rib = new ChannelRib(subscribers.size());
    for (int i = 0; i < subscribers.size(); i++) {
      for (Family f : subscribers.get(i).syncs()) {
        awaitingSync.add(key(i, f));
      }
    }
    metrics.selectedGauge(config.name(), view::size);
  }

  private static long key(int source, Family f) {
    return ((long) source << 8) | f.ordinal();
  }

  FibConfig.ChannelConfig config() {
    return config;
  }

  String name() {
    return config.name();
  }

  /** The selected route of every destination now. */
  Map<IpPrefix, ChannelRoute> selected() {
    return Map.copyOf(view);
  }

  /** Whether the publishers have been reconciled once. */
  boolean ready() {
    return ready;
  }

  void start() {
    owner = Thread.ofPlatform().name("fib-" + config.name()).start(this::run);
    for (Subscriber s : subscribers) {
      s.start(queue::add);
    }
  }

  private void run() {
    long deadline = System.nanoTime() + grace.toNanos();
    long nextRetry = Long.MAX_VALUE;
    List<SourceEvent> batch = new ArrayList<>();
    while (running) {
      try {
        SourceEvent first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first != null) {
          batch.add(first);
          queue.drainTo(batch, DRAIN);
        }
      } catch (InterruptedException e) {
        break;
      }
      List<ChannelRib.Change> changes = new ArrayList<>();
      for (SourceEvent e : batch) {
        try {
          changes.addAll(rib.apply(e));
        } catch (RuntimeException ex) {
          LOG.log(
              java.util.logging.Level.WARNING,
              "event=source-event-refused channel=" + config.name(),
              ex);
        }
        if (e instanceof SourceEvent.Sync s) {
          awaitingSync.remove(key(s.source(), s.family()));
        }
      }
      batch.clear();
      for (ChannelRib.Change c : changes) {
        if (c.selected() == null) {
          view.remove(c.destination());
        } else {
          view.put(c.destination(), c.selected());
        }
      }
      try {
        if (!ready) {
          if (awaitingSync.isEmpty()) {
            publishers.forEach(p -> p.reconcile(rib.selected()));
            ready = true;
          } else if (System.nanoTime() > deadline) {
            LOG.warning(
                () ->
                    "event=start-without-all-sources channel="
                        + config.name()
                        + " msg=\"not every subscriber delivered its routes within "
                        + grace.toSeconds()
                        + " s: installing what the others have, removing nothing until they"
                        + " have\"");
            // a speaker restarting gracefully sends its table only once its peers' are back
            // (RFC 4724 §4.1): what the kernel holds from before stays until then
            publishers.forEach(p -> p.reconcileKeeping(rib.selected()));
            ready = true;
            partial = true;
          }
        } else {
          if (!changes.isEmpty()) {
            publishers.forEach(p -> p.apply(changes));
          }
          if (partial && awaitingSync.isEmpty()) {
            partial = false;
            LOG.info(() -> "event=all-sources-synced channel=" + config.name());
            publishers.forEach(p -> p.reconcile(rib.selected()));
          }
        }
        if (ready && (broken || publishers.stream().anyMatch(Publisher::needsReconcile))) {
          long now = System.nanoTime();
          if (nextRetry == Long.MAX_VALUE) {
            nextRetry = now + retry.toNanos();
          } else if (now >= nextRetry) {
            nextRetry = Long.MAX_VALUE;
            boolean all = broken;
            broken = false;
            publishers.stream()
                .filter(p -> all || p.needsReconcile())
                .forEach(
                    p -> {
                      if (partial) {
                        p.reconcileKeeping(rib.selected());
                      } else {
                        p.reconcile(rib.selected());
                      }
                    });
          }
        }
      } catch (RuntimeException e) {
        // a publisher's bug must not stop the channel: log it, and reconcile everything later
        LOG.log(
            java.util.logging.Level.WARNING, "event=publish-failed channel=" + config.name(), e);
        broken = true;
      }
    }
  }

  @Override
  public void close() {
    running = false;
    subscribers.forEach(Subscriber::close);
    if (owner != null) {
      owner.interrupt();
      try {
        owner.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    publishers.forEach(Publisher::close);
  }
}
