package dev.sart.controller.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * The controller's Prometheus metrics (sart.md §6.6 names): reconcile counts, errors and durations per
 * resource; the allocator gauges register themselves on {@link #registry()}.
 */
public final class Metrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** {@code sart_controller_reconciliation_total{resource}}. */
  public void reconciled(String resource, Duration took) {
    Counter.builder("sart.controller.reconciliation").tag("resource", resource)
        .description("reconciliations").register(registry).increment();
    Timer.builder("sart.controller.reconcile.duration").tag("resource", resource)
        .description("time of one reconciliation").publishPercentileHistogram().register(registry).record(took);
  }

  /** {@code sart_controller_reconciliation_errors_total{resource}}. */
  public void failed(String resource) {
    Counter.builder("sart.controller.reconciliation.errors").tag("resource", resource)
        .description("reconciliations that failed").register(registry).increment();
  }

  /** One allocator gauge series: pool, family and its value. */
  public record Series(String pool, String family, java.util.function.DoubleSupplier value) {}

  private final java.util.List<Series> addressesTotal = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.List<Series> addressesInUse = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * MetalLB's allocator gauges under our prefix: {@code sart_allocator_addresses_total} and
   * {@code sart_allocator_addresses_in_use_total} per pool and family. Written by hand because
   * Micrometer strips a {@code _total} suffix from gauges, and these names are what dashboards expect.
   */
  public void allocatorPool(String pool, String family, java.util.function.DoubleSupplier total,
      java.util.function.DoubleSupplier inUse) {
    addressesTotal.removeIf(s -> s.pool().equals(pool));
    addressesInUse.removeIf(s -> s.pool().equals(pool));
    addressesTotal.add(new Series(pool, family, total));
    addressesInUse.add(new Series(pool, family, inUse));
  }

  /** Drops the allocator series (the allocator that fed them is gone, e.g. leadership lost). */
  public void clearAllocatorPools() {
    addressesTotal.clear();
    addressesInUse.clear();
  }

  /** The text exposition format for {@code GET /metrics}. */
  public String scrape() {
    var text = new StringBuilder(registry.scrape());
    gauge(text, "sart_allocator_addresses_total", "addresses a service pool can hand out", addressesTotal);
    gauge(text, "sart_allocator_addresses_in_use_total", "addresses of a service pool held by Services", addressesInUse);
    return text.toString();
  }

  private static void gauge(StringBuilder text, String name, String help, java.util.List<Series> series) {
    if (series.isEmpty()) {
      return;
    }
    text.append("# HELP ").append(name).append(' ').append(help).append('\n');
    text.append("# TYPE ").append(name).append(" gauge\n");
    for (var s : series) {
      text.append(name).append("{pool=\"").append(s.pool()).append("\",family=\"").append(s.family()).append("\"} ")
          .append(s.value().getAsDouble()).append('\n');
    }
  }
}
