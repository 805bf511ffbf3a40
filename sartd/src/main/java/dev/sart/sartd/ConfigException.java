package dev.sart.sartd;

import java.nio.file.Path;

/**
 * A mistake in a configuration file: printed by {@link Sartd}'s one error edge as {@code error:
 * file:line: what}, exit code 2.
 */
final class ConfigException extends IllegalArgumentException {
  private final Path file;
  private final int line;
  private final String what;

  ConfigException(Path file, int line, String what) {
    super(file + (line > 0 ? ":" + line : "") + ": " + what);
    this.file = file;
    this.line = line;
    this.what = what;
  }

  Path file() {
    return file;
  }

  /** 1-based; 0 when no line applies (a file that cannot be read). */
  int line() {
    return line;
  }

  String what() {
    return what;
  }
}
