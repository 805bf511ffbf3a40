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

  void install() {
    LogFormat.install(level, format);
  }
}
