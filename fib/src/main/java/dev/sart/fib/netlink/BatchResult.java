package dev.sart.fib.netlink;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What became of each request of a batch: the requests are numbered from 0 in the order they were
 * added, and each one that failed has its {@link NetlinkException}.
 */
public final class BatchResult {
  private final int size;
  private final Map<Integer, NetlinkException> failures;

  BatchResult(int size, Map<Integer, NetlinkException> failures) {
    this.size = size;
    this.failures = Collections.unmodifiableMap(new TreeMap<>(failures));
  }

  /** How many requests the batch held. */
  public int size() {
    return size;
  }

  public boolean allSucceeded() {
    return failures.isEmpty();
  }

  /** The failed requests by index, in index order. */
  public Map<Integer, NetlinkException> failures() {
    return failures;
  }

  /** The failure of request {@code index}, or null when it succeeded. */
  public NetlinkException failure(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException(index);
    }
    return failures.get(index);
  }

  /** Throws the first failure, with the others suppressed, when any request failed. */
  public void throwIfFailed() {
    if (failures.isEmpty()) {
      return;
    }
    List<NetlinkException> all = new ArrayList<>(failures.values());
    NetlinkException first = all.getFirst();
    if (all.size() == 1) {
      throw first;
    }
    NetlinkException e =
        new NetlinkException(
            first.operation() + " (and " + (all.size() - 1) + " more of " + size + " requests)",
            first.errno(),
            first.extAck());
    all.forEach(e::addSuppressed);
    throw e;
  }

  @Override
  public String toString() {
    return failures.isEmpty()
        ? size + " requests, all succeeded"
        : size
            + " requests, "
            + failures.size()
            + " failed, first: "
            + failures.values().iterator().next().getMessage();
  }
}
