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

  private LogFormat(boolean json) {
    this.json = json;
  }

  static synchronized void install(String level, String format) {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    Level l =
        switch (level.toLowerCase(java.util.Locale.ROOT)) {
          case "trace" -> Level.FINEST;
          case "debug" -> Level.FINE;
          case "warn" -> Level.WARNING;
          case "error" -> Level.SEVERE;
          default -> Level.INFO;
        };
    root.setLevel(l);
    Handler h = new ConsoleHandler();
    h.setLevel(l);
    h.setFormatter(new LogFormat("json".equalsIgnoreCase(format)));
    root.addHandler(h);
    // Netty and gRPC are chatty below INFO
    Logger.getLogger("io.netty").setLevel(Level.INFO);
    Logger.getLogger("io.grpc").setLevel(Level.INFO);
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
