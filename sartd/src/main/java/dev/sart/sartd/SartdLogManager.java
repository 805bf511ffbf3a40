package dev.sart.sartd;

import java.util.logging.LogManager;

/**
 * The JDK's {@link LogManager} with its handlers kept to the end of the process.
 *
 * <p>The JDK's own closes every handler from a shutdown hook of its own, which runs at the same
 * time as the daemons' hooks: what they log while stopping ({@code event=stopping}, the sessions
 * closed) was lost. Here that last reset does nothing; the handlers {@link LogFormat} installs
 * flush every record, so nothing is left in a buffer. {@link Sartd#main} chooses it unless {@code
 * java.util.logging.manager} is set already.
 */
public final class SartdLogManager extends LogManager {
  @Override
  public void reset() {
    if (Thread.currentThread()
        .getClass()
        .getName()
        .equals("java.util.logging.LogManager$Cleaner")) {
      return; // the JVM is ending: the handlers stay for the other hooks
    }
    super.reset();
  }
}
