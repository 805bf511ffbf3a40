package dev.sart.controller.lb;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The addresses the {@link ServiceReconciler} has decided for each Service, published the moment
 * the allocator decides, before the Service's status PATCH is sent: the advertisement reconciler
 * creates a Service's BGPAdvertisements in parallel with that write instead of waiting for it to
 * come back through the Service informer (one API round trip less between a Service's creation and
 * its route). A Service with no entry here (e.g. decided by an earlier leader) is read from its
 * status. Written by the Service reconciler's thread, read by any.
 */
public final class Decisions {
  private final Map<String, List<InetAddress>> addresses = new ConcurrentHashMap<>();
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

  /** Calls {@code listener} with a Service's key ({@code namespace/name}) after each change. */
  public void onChange(Consumer<String> listener) {
    listeners.add(listener);
  }

  /** The addresses decided for {@code key}, or null when this term has decided nothing for it. */
  public List<InetAddress> get(String key) {
    return addresses.get(key);
  }

  /** Records what the Service reconciler decided for {@code key} (it alone calls this). */
  public void put(String key, List<InetAddress> decided) {
    var before = addresses.put(key, List.copyOf(decided));
    if (!decided.equals(before)) {
      listeners.forEach(l -> l.accept(key));
    }
  }

  /** The Service {@code key} is gone, or no longer the Service reconciler's. */
  public void remove(String key) {
    if (addresses.remove(key) != null) {
      listeners.forEach(l -> l.accept(key));
    }
  }
}
