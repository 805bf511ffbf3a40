package dev.sart.sartd;

import picocli.CommandLine.Option;

/** The log flags every sub-command shares ({@code @Mixin}); {@link #install()} applies them. */
final class LogOptions {
  @Option(
      names = {"-l", "--level"},
      description = "log level: error, warn, info, debug, trace",
      defaultValue = "info")
  String level;

  @Option(
      names = {"-d", "--format"},
      description = "log format: plain (key=value) or json",
      defaultValue = "plain")
  String format;

  @Option(
      names = {"-o", "--log-file"},
      description = "append the log to this file instead of stderr")
  java.nio.file.Path logFile;

  void install() {
    LogFormat.install(level, format, logFile);
  }
}
