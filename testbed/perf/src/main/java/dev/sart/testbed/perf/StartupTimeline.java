package dev.sart.testbed.perf;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The start-up of a sartd process as its own log tells it: each {@code event=} line up to the one
 * that says it is ready, as milliseconds after the exec ({@code bin/footprint}). sartd's plain log
 * lines start with {@code time=<ISO instant, ms>} and name their logger ({@code logger=}); a step
 * is the first line of each logger and event.
 */
final class StartupTimeline {
  private StartupTimeline() {}

  /** One step: {@code logger event}, and when it was logged, in ms after the exec. */
  record Step(String name, long ms) {}

  /**
   * The steps of {@code log} up to and including the first line holding {@code readyLine}; lines
   * that are not sartd's plain format are skipped.
   */
  static List<Step> of(String log, Instant exec, String readyLine) {
    Map<String, Long> steps = new LinkedHashMap<>();
    for (String line : log.split("\n")) {
      String time = field(line, "time=");
      String event = field(line, "event=");
      if (line.startsWith("time=") && time != null && event != null) {
        try {
          long ms = Instant.parse(time).toEpochMilli() - exec.toEpochMilli();
          String logger = field(line, "logger=");
          steps.putIfAbsent((logger == null ? "" : logger + " ") + event, ms);
        } catch (DateTimeParseException e) {
          // not one of sartd's lines
        }
      }
      if (line.contains(readyLine)) {
        break;
      }
    }
    List<Step> out = new ArrayList<>();
    steps.forEach((k, v) -> out.add(new Step(k, v)));
    return out;
  }

  private static String field(String line, String key) {
    int i = line.startsWith(key) ? 0 : line.indexOf(" " + key);
    if (i < 0) {
      return null;
    }
    int from = i + (i == 0 ? 0 : 1) + key.length();
    int to = line.indexOf(' ', from);
    return line.substring(from, to < 0 ? line.length() : to);
  }
}
