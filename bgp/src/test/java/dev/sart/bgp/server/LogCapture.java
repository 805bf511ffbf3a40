package dev.sart.bgp.server;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What one {@code java.util.logging} logger (and those below it) logs during each test, for tests
 * that check the speaker's log lines ({@code event=collision}, {@code event=end-of-rib}, ...). A
 * JUnit extension: attached before each test, detached after it, the logger's level restored.
 */
final class LogCapture implements BeforeEachCallback, AfterEachCallback {
  private final Logger logger; // held: the JDK keeps loggers only weakly
  private final Level level;
  private final Queue<LogRecord> records = new ConcurrentLinkedQueue<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          records.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private Level before;

  /** The logger's records at the levels it logs anyway. */
  LogCapture(String logger) {
    this(logger, null);
  }

  /** The logger's records from {@code level} up, the logger set to it during the test. */
  LogCapture(String logger, Level level) {
    this.logger = Logger.getLogger(logger);
    this.level = level;
    handler.setLevel(Level.ALL);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    records.clear();
    before = logger.getLevel();
    if (level != null) {
      logger.setLevel(level);
    }
    logger.addHandler(handler);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger.removeHandler(handler);
    logger.setLevel(before);
  }

  /** The records so far, oldest first. */
  List<LogRecord> records() {
    return List.copyOf(records);
  }

  /** The messages so far, oldest first. */
  List<String> messages() {
    return records().stream().map(r -> String.valueOf(r.getMessage())).toList();
  }
}
