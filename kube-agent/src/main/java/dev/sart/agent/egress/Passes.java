package dev.sart.agent.egress;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One platform thread that runs a level-triggered pass over everything: events only request a pass,
 * requests made while one waits coalesce, a failed pass is run again after a second (one retry
 * pending at a time), and a pass runs every {@code resync} anyway. The pass's state has this thread
 * as its one owner.
 */
final class Passes implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Passes.class.getName());

  private final ScheduledExecutorService thread;
  private final Runnable pass;
  private final AtomicBoolean requested = new AtomicBoolean();
  private final AtomicBoolean retrying = new AtomicBoolean();

  Passes(String name, Runnable pass, long resyncSeconds) {
    this.pass = pass;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name(name).factory());
    thread.scheduleWithFixedDelay(this::request, resyncSeconds, resyncSeconds, TimeUnit.SECONDS);
  }

  void request() {
    if (requested.compareAndSet(false, true)) {
      thread.execute(this::run);
    }
  }

  private void run() {
    requested.set(false);
    try {
      pass.run();
    } catch (RuntimeException e) {
      // one retry at a time: passes requested meanwhile by events fail alike and add none
      if (retrying.compareAndSet(false, true)) {
        LOG.log(Level.WARNING, "egress pass failed, again in 1 s: " + e.getMessage(), e);
        thread.schedule(
            () -> {
              retrying.set(false);
              request();
            },
            1,
            TimeUnit.SECONDS);
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
