package dev.sart.controller.lb;

import java.net.InetAddress;
import java.util.List;

/**
 * The result of one allocation pass for a Service: the addresses it now holds (in family order),
 * what changed, and the error if its wish could not be met (then it keeps what it had).
 */
public record Outcome(
    List<InetAddress> addresses,
    List<InetAddress> allocated,
    List<InetAddress> released,
    String error) {
  public boolean failed() {
    return error != null;
  }
}
