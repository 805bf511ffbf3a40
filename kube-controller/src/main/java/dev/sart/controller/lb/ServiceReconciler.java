package dev.sart.controller.lb;

import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.controller.runtime.Patches;
import dev.sart.controller.runtime.Writes;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressPoolStatus;
import dev.sart.crds.AddressType;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Load-balancer addresses for Services: the {@link Allocator}'s owner. At start it waits for the
 * Service and AddressPool caches, re-takes every address found in Service status (the source of
 * truth), and only then hands out new ones. Writes {@code status.loadBalancer.ingress}; posts
 * IPAllocated / IPReleased / AllocationFailed Events on the Service. Puts no finalizer on Services:
 * a deleted Service's addresses are freed from the delete event, or not re-taken after a restart.
 */
public final class ServiceReconciler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ServiceReconciler.class.getName());
  private static final String POOL_KEY = "@pool:";

  /**
   * Writes every service pool's counts to its status; queued at most once per {@link
   * #STATUS_DELAY}.
   */
  private static final String POOL_STATUS_KEY = "@pool-status";

  private static final Duration STATUS_DELAY = Duration.ofSeconds(1);

  private final Informers informers;
  private final ServiceViews views;
  private final Events events;
  private final Metrics metrics;
  private final Allocator allocator = new Allocator();
  private final Decisions decisions = new Decisions();
  private final Loop loop;

  /** Status writes, sent off the reconciler's thread (one at a time per Service). */
  private final Writes writes = new Writes("service-status", 8);

  private final Map<String, Integer> writeFailures = new ConcurrentHashMap<>();

  /**
   * The spec each pool had when last handled: a status-only change of a pool re-queues no Service.
   */
  private final Map<String, AddressPoolSpec> poolSpecs = new HashMap<>();

  private boolean poolStatusQueued;
  private final Map<String, String> lastError = new HashMap<>();
  private final Set<String> gauged = new HashSet<>();

  /**
   * When the oldest not yet handled event of each Service arrived (for the status-write timing).
   */
  private final Map<String, Long> received = new ConcurrentHashMap<>();

  public ServiceReconciler(
      Informers informers, String loadBalancerClass, Events events, Metrics metrics) {
    this.informers = informers;
    this.views = new ServiceViews(loadBalancerClass);
    this.events = events;
    this.metrics = metrics;
    this.loop = new Loop("service", this::reconcile, metrics);
    informers.watch(
        Service.class,
        s -> {
          var key = ServiceViews.key(s);
          received.putIfAbsent(key, System.nanoTime());
          loop.enqueue(key);
        });
    informers.watch(AddressPool.class, p -> loop.enqueue(POOL_KEY + p.getMetadata().getName()));
  }

  /**
   * Call after the informers synced: restores allocations from Service status, then starts
   * handling.
   */
  public void start() {
    for (var pool : informers.list(AddressPool.class)) {
      upsert(pool);
      poolSpecs.put(pool.getMetadata().getName(), pool.getSpec());
    }
    int restored = 0;
    for (var service : informers.list(Service.class)) {
      restored += restore(service);
    }
    allocator.resumeAfterRestore();
    LOG.info("allocations restored addresses=" + restored + " pools=" + allocator.pools().size());
    loop.start();
    poolCountsChanged();
  }

  private int restore(Service service) {
    if (!views.wanted(service)) {
      return 0;
    }
    try {
      var view = views.view(service);
      var lost = allocator.restore(view);
      if (!lost.isEmpty()) {
        LOG.warning("address clash on restore service=" + view.key() + " lost=" + lost);
      }
      return view.current().size() - lost.size();
    } catch (IllegalArgumentException e) {
      return 0;
    }
  }

  private void upsert(AddressPool pool) {
    if (pool.getSpec() == null || pool.getSpec().type() != AddressType.SERVICE) {
      return;
    }
    try {
      allocator.upsertPool(pool.getMetadata().getName(), pool.getSpec());
    } catch (IllegalArgumentException e) {
      LOG.warning("pool ignored name=" + pool.getMetadata().getName() + " error=" + e.getMessage());
      return;
    }
    gauges(pool.getMetadata().getName());
  }

  /**
   * MetalLB-style gauges per pool and family: {@code sart_allocator_addresses_total}, {@code
   * ..._in_use_total}.
   */
  private void gauges(String name) {
    if (!gauged.add(name)) {
      return;
    }
    var family = allocator.pool(name).map(p -> p.isIpv4() ? "ipv4" : "ipv6").orElse("");
    metrics.allocatorPool(
        name,
        family,
        () -> allocator.pool(name).map(p -> p.capacity().doubleValue()).orElse(0.0),
        () -> allocator.pool(name).map(p -> (double) p.inUse()).orElse(0.0));
  }

  private Duration reconcile(String key) {
    if (key.startsWith(POOL_KEY)) {
      reconcilePool(key.substring(POOL_KEY.length()));
      return null;
    }
    if (key.equals(POOL_STATUS_KEY)) {
      poolStatusQueued = false;
      writePoolStatus();
      return null;
    }
    Long since = received.remove(key);
    long start = System.nanoTime();
    var service = informers.get(Service.class, key);
    if (service == null) {
      var released = allocator.releaseAll(key);
      decisions.remove(key);
      lastError.remove(key);
      if (!released.isEmpty()) {
        LOG.info("released service=" + key + " addresses=" + text(released) + " reason=deleted");
        poolCountsChanged();
      }
      return null;
    }
    if (views.foreign(service)) {
      decisions.remove(key);
      if (!allocator.releaseAll(key).isEmpty()) {
        poolCountsChanged();
      }
      return null;
    }
    ServiceView view;
    try {
      view = views.view(service);
    } catch (IllegalArgumentException e) {
      fail(service, key, "invalid annotation: " + e.getMessage());
      return null;
    }
    var outcome = allocator.reconcile(view);
    // published before the status PATCH: the Service's advertisements are made meanwhile
    decisions.put(key, outcome.addresses());
    if (!outcome.allocated().isEmpty() || !outcome.released().isEmpty()) {
      poolCountsChanged();
    }
    Runnable announce =
        () -> {
          if (!outcome.allocated().isEmpty()) {
            LOG.info("allocated service=" + key + " addresses=" + text(outcome.allocated()));
            events.normal(service, "IPAllocated", "Assigned IP " + text(outcome.allocated()));
          }
          if (!outcome.released().isEmpty()) {
            LOG.info("released service=" + key + " addresses=" + text(outcome.released()));
            events.normal(service, "IPReleased", "Released IP " + text(outcome.released()));
          }
        };
    if (!outcome.addresses().equals(view.current())) {
      // the allocator's decision is made (and held); the PATCH goes out without holding up the next
      // Service
      long receivedAt = since == null ? 0 : since;
      writes.submit(
          key, () -> writeStatus(key, service, outcome.addresses(), receivedAt, start, announce));
    } else {
      announce.run();
    }
    if (outcome.failed()) {
      fail(service, key, outcome.error());
    } else {
      lastError.remove(key);
    }
    return null;
  }

  private void fail(Service service, String key, String error) {
    if (!error.equals(lastError.put(key, error))) {
      LOG.info("allocation failed service=" + key + " error=" + error);
      events.warning(service, "AllocationFailed", error);
    }
  }

  private void reconcilePool(String name) {
    var pool = informers.get(AddressPool.class, name);
    if (pool != null && pool.getMetadata().getDeletionTimestamp() != null) {
      allocator.drain(name);
      return;
    }
    if (pool == null) {
      poolSpecs.remove(name);
      if (allocator.pool(name).isPresent()) {
        allocator.removePool(name);
        informers.list(Service.class).forEach(s -> loop.enqueue(ServiceViews.key(s)));
      }
      return;
    }
    if (pool.getSpec() == null || pool.getSpec().type() != AddressType.SERVICE) {
      return; // a pod pool (its status changes with every block) concerns no Service
    }
    boolean known = allocator.pool(name).isPresent();
    if (known && java.util.Objects.equals(poolSpecs.get(name), pool.getSpec())) {
      // a status (or metadata) change only: keep the counts in status true, Services are unaffected
      poolCountsChanged();
      return;
    }
    poolSpecs.put(name, pool.getSpec());
    upsert(pool);
    if (!known) {
      // re-take addresses that Services already hold in this pool before anyone gets a new one
      informers.list(Service.class).forEach(this::restore);
    }
    for (var service : informers.list(Service.class)) {
      if (views.wanted(service)) {
        loop.enqueue(ServiceViews.key(service));
      }
    }
    poolCountsChanged();
  }

  /** Queues one write of every service pool's counts, at most once per {@link #STATUS_DELAY}. */
  private void poolCountsChanged() {
    if (!poolStatusQueued) {
      poolStatusQueued = true;
      loop.enqueueAfter(POOL_STATUS_KEY, STATUS_DELAY);
    }
  }

  /**
   * Each service pool's {@code status}: family, addresses it can hand out, distinct addresses held
   * (the allocator's view, the same as {@code sart_allocator_addresses_in_use_total}). Written only
   * when it differs from what the pool shows.
   */
  private void writePoolStatus() {
    for (var pool : allocator.pools()) {
      var object = informers.get(AddressPool.class, pool.name());
      if (object == null || object.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      var status = AddressPoolStatus.service(pool.isIpv4(), pool.capacity(), pool.inUse());
      if (status.equals(object.getStatus())) {
        continue;
      }
      var name = pool.name();
      writes.submit(
          POOL_STATUS_KEY + ":" + name,
          () -> {
            try {
              informers
                  .client()
                  .resource(object)
                  .subresource("status")
                  .patch(PatchContext.of(PatchType.JSON), Patches.setStatus(status));
            } catch (KubernetesClientException e) {
              if (e.getCode() != 404) {
                LOG.info("pool status write failed pool=" + name + " error=" + e);
                loop.enqueueAfter(POOL_STATUS_KEY, STATUS_DELAY);
              }
            }
          });
    }
  }

  /**
   * Writes {@code status.loadBalancer.ingress}; on success posts the Events of the change, on
   * failure looks at the Service again after a backoff (the allocator keeps what it decided
   * meanwhile).
   */
  private void writeStatus(
      String key,
      Service service,
      List<InetAddress> addresses,
      long received,
      long start,
      Runnable announce) {
    var ingress =
        addresses.stream()
            .map(a -> "{\"ip\":\"" + Ip.format(a) + "\"}")
            .collect(Collectors.joining(","));
    var loadBalancer = "{\"ingress\":[" + ingress + "]}";
    // RFC 6902 JSON Patch: "add" replaces an existing member, and the list is replaced as a whole
    var patch =
        service.getStatus() == null
            ? "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"loadBalancer\":"
                + loadBalancer
                + "}}]"
            : "[{\"op\":\"add\",\"path\":\"/status/loadBalancer\",\"value\":" + loadBalancer + "}]";
    long sent = System.nanoTime();
    try {
      // resource(service), not withName(...): a patch by name first GETs the Service (a second
      // round trip)
      informers
          .client()
          .resource(service)
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return; // deleted meanwhile: the delete event releases
      }
      int attempt = writeFailures.merge(key, 1, Integer::sum);
      var retry = Loop.backoff(attempt);
      metrics.failed("service");
      LOG.info(
          "status write failed service="
              + key
              + " attempt="
              + attempt
              + " retryMs="
              + retry.toMillis()
              + " error="
              + e);
      loop.enqueueAfter(key, retry);
      return;
    }
    writeFailures.remove(key);
    metrics.serviceStatusWritten(
        new Metrics.StatusWrite(key, received, start, sent, System.nanoTime()));
    announce.run();
  }

  private static String text(List<InetAddress> addresses) {
    return addresses.stream().map(Ip::format).collect(Collectors.joining(","));
  }

  /** The addresses decided per Service, as soon as decided (before the status write). */
  public Decisions decisions() {
    return decisions;
  }

  /** For tests and the benchmark. */
  public Allocator allocatorForTests() {
    return allocator;
  }

  public int pending() {
    return loop.pending() + writes.pending();
  }

  @Override
  public void close() {
    loop.close();
    writes.close();
    metrics.clearAllocatorPools();
  }
}
