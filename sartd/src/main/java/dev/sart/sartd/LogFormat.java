package dev.sart.sartd;

import java.time.Instant;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * One line per record: {@code time=... level=... logger=... <message of key=value pairs>}, or JSON.
 */
final class LogFormat extends Formatter {
  private final boolean json;

  /**
   * Netty's and gRPC's loggers, held: java.util.logging keeps loggers weakly, and one collected
   * comes back without the level set on it.
   */
  private static final java.util.List<Logger> CHATTY =
      java.util.List.of(Logger.getLogger("io.netty"), Logger.getLogger("io.grpc"));

  private LogFormat(boolean json) {
    this.json = json;
  }

  static synchronized void install(String level, String format) {
    install(level, format, null);
  }

  /** Logs at {@code level} in {@code format} to stderr, or appended to {@code file} when given. */
  static synchronized void install(String level, String format, java.nio.file.Path file) {
    Level l =
        switch (level.toLowerCase(java.util.Locale.ROOT)) {
          case "trace" -> Level.FINEST;
          case "debug" -> Level.FINE;
          case "info" -> Level.INFO;
          case "warn" -> Level.WARNING;
          case "error" -> Level.SEVERE;
          default ->
              throw new UsageException(
                  "--level: '" + level + "' is not one of error, warn, info, debug, trace");
        };
    if (!"plain".equalsIgnoreCase(format) && !"json".equalsIgnoreCase(format)) {
      throw new UsageException("--format: '" + format + "' is not plain or json");
    }
    Handler h;
    if (file == null) {
      h = new ConsoleHandler();
    } else {
      try {
        h =
            new java.util.logging.StreamHandler(
                java.nio.file.Files.newOutputStream(
                    file,
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND),
                new LogFormat(false)) {
              @Override
              public synchronized void publish(LogRecord r) {
                super.publish(r);
                flush();
              }
            };
      } catch (java.io.IOException e) {
        throw new UsageException("--log-file: cannot write " + file + ": " + e.getMessage());
      }
    }
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    root.setLevel(l);
    h.setLevel(l);
    h.setFormatter(new LogFormat("json".equalsIgnoreCase(format)));
    root.addHandler(h);
    // Netty and gRPC are chatty below INFO
    CHATTY.forEach(c -> c.setLevel(Level.INFO));
  }

  @Override
  public String format(LogRecord r) {
    String logger =
        r.getLoggerName() == null
            ? ""
            : r.getLoggerName().substring(r.getLoggerName().lastIndexOf('.') + 1);
    String msg = formatMessage(r);
    String level =
        switch (r.getLevel().intValue()) {
          case 1000 -> "error";
          case 900 -> "warn";
          case 800 -> "info";
          default -> "debug";
        };
    String error = r.getThrown() == null ? "" : r.getThrown().toString();
    if (json) {
      return "{\"time\":\""
          + Instant.ofEpochMilli(r.getMillis())
          + "\",\"level\":\""
          + level
          + "\",\"logger\":\""
          + logger
          + "\",\"msg\":\""
          + escape(msg)
          + "\""
          + (error.isEmpty() ? "" : ",\"error\":\"" + escape(error) + "\"")
          + "}\n";
    }
    return "time="
        + Instant.ofEpochMilli(r.getMillis())
        + " level="
        + level
        + " logger="
        + logger
        + " "
        + msg
        + (error.isEmpty() ? "" : " error=\"" + error.replace("\"", "'") + "\"")
        + "\n";
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
