package dev.sart.sartd;

import java.util.concurrent.Callable;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The parts of {@code sartd node} (speaker, FIB, agent) share one process: a part that fails, with
 * an exception or an {@link Error}, ends the process with exit code 1, so that the kubelet restarts
 * the whole node daemon instead of leaving it half alive (a JVM kept up by the other parts'
 * threads, with no agent behind its probes).
 */
final class Parts {
  private static final Logger LOG = Logger.getLogger(Parts.class.getName());

  private final IntConsumer exit;

  Parts(IntConsumer exit) {
    this.exit = exit;
  }

  /** The process's own parts: a failure calls {@link System#exit}. */
  static Parts ofProcess() {
    return new Parts(System::exit);
  }

  /** Runs {@code body} on a platform thread of its own. */
  Thread start(String name, Callable<?> body) {
    return Thread.ofPlatform().name("sartd-" + name).start(() -> run(name, body));
  }

  /** Runs {@code body} on this thread; its result, or null when it failed. */
  <T> T run(String name, Callable<T> body) {
    try {
      return body.call();
    } catch (Throwable t) {
      LOG.log(Level.SEVERE, "event=" + name + "-failed reason=\"" + t + "\" action=exit code=1", t);
      exit.accept(1);
      return null;
    }
  }
}
