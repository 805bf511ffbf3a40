package dev.sart.sartd;

/**
 * A flag or environment value that cannot be used: printed by {@link Sartd}'s error edge as {@code
 * error: what}, exit code 2, with no stack trace.
 */
final class UsageException extends RuntimeException {
  UsageException(String what) {
    super(what, null, false, false);
  }
}
