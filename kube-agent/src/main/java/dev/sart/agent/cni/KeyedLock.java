package dev.sart.agent.cni;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per key (a container id), made on first use and dropped when nobody holds or waits for
 * it: calls for one container run one at a time, calls for different containers in parallel.
 */
final class KeyedLock {
  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  @FunctionalInterface
  interface Body<T> {
    T run() throws CniException;
  }

  <T> T with(String key, Body<T> body) throws CniException {
    Entry e =
        entries.compute(
            key,
            (k, v) -> {
              Entry x = v == null ? new Entry() : v;
              x.users++;
              return x;
            });
    e.lock.lock();
    try {
      return body.run();
    } finally {
      e.lock.unlock();
      entries.compute(key, (k, v) -> --v.users == 0 ? null : v);
    }
  }

  /** Keys held or waited for now (for tests). */
  int size() {
    return entries.size();
  }
}
