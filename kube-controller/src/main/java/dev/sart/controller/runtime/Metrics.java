package dev.sart.controller.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * The controller's Prometheus metrics (sart.md §6.6 names): reconcile counts, errors and durations
 * per resource; the allocator gauges register themselves on {@link #registry()}.
 */
public final class Metrics {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** {@code sart_controller_reconciliation_total{resource}}. */
  public void reconciled(String resource, Duration took) {
    Counter.builder("sart.controller.reconciliation")
        .tag("resource", resource)
        .description("reconciliations")
        .register(registry)
        .increment();
    Timer.builder("sart.controller.reconcile.duration")
        .tag("resource", resource)
        .description("time of one reconciliation")
        .publishPercentileHistogram()
        .register(registry)
        .record(took);
  }

  /** {@code sart_controller_reconciliation_errors_total{resource}}. */
  public void failed(String resource) {
    Counter.builder("sart.controller.reconciliation.errors")
        .tag("resource", resource)
        .description("reconciliations that failed")
        .register(registry)
        .increment();
  }

  /**
   * One status write of the Service reconciler, as {@link System#nanoTime()} stamps: the first
   * watch event of the Service not yet handled reached the reconciler, its reconcile began, the
   * status PATCH was sent, the API server acknowledged it. {@code receivedNanos} is 0 when the
   * reconcile had no Service event behind it (a pool change).
   */
  public record StatusWrite(
      String key, long receivedNanos, long startNanos, long sentNanos, long ackedNanos) {}

  private volatile java.util.function.Consumer<StatusWrite> statusListener = w -> {};

  /**
   * {@code sart_controller_service_status_duration_seconds}: a Service's watch event received → its
   * status PATCH acknowledged (the controller's share of a Service getting its address, plus one
   * round trip to the API server).
   */
  public void serviceStatusWritten(StatusWrite write) {
    if (write.receivedNanos() != 0) {
      Timer.builder("sart.controller.service.status.duration")
          .description("Service watch event received to its status PATCH acknowledged")
          .publishPercentileHistogram()
          .register(registry)
          .record(Duration.ofNanos(write.ackedNanos() - write.receivedNanos()));
    }
    statusListener.accept(write);
  }

  /** Sees every Service status write (the benchmark's per-phase breakdown). */
  public void onServiceStatusWritten(java.util.function.Consumer<StatusWrite> listener) {
    statusListener = listener;
  }

  /** One allocator gauge series: pool, family and its value. */
  public record Series(String pool, String family, java.util.function.DoubleSupplier value) {}

  private final java.util.List<Series> addressesTotal =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.List<Series> addressesInUse =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * MetalLB's allocator gauges under our prefix: {@code sart_allocator_addresses_total} and {@code
   * sart_allocator_addresses_in_use_total} per pool and family. Written by hand because Micrometer
   * strips a {@code _total} suffix from gauges, and these names are what dashboards expect.
   */
  public void allocatorPool(
      String pool,
      String family,
      java.util.function.DoubleSupplier total,
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

  private final java.util.List<java.util.function.Consumer<StringBuilder>> sections =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Adds hand-written families to every scrape (series whose label sets come and go with objects);
   * {@link #removeSection} drops them again.
   */
  public void addSection(java.util.function.Consumer<StringBuilder> section) {
    sections.add(section);
  }

  public void removeSection(java.util.function.Consumer<StringBuilder> section) {
    sections.remove(section);
  }

  /** A label value escaped for the text format (backslash, double quote, newline). */
  public static String label(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /** The text exposition format for {@code GET /metrics}. */
  public String scrape() {
    var text = new StringBuilder(registry.scrape());
    sections.forEach(s -> s.accept(text));
    gauge(
        text,
        "sart_allocator_addresses_total",
        "addresses a service pool can hand out",
        addressesTotal);
    gauge(
        text,
        "sart_allocator_addresses_in_use_total",
        "addresses of a service pool held by Services",
        addressesInUse);
    return text.toString();
  }

  private static void gauge(
      StringBuilder text, String name, String help, java.util.List<Series> series) {
    if (series.isEmpty()) {
      return;
    }
    text.append("# HELP ").append(name).append(' ').append(help).append('\n');
    text.append("# TYPE ").append(name).append(" gauge\n");
    for (var s : series) {
      text.append(name)
          .append("{pool=\"")
          .append(s.pool())
          .append("\",family=\"")
          .append(s.family())
          .append("\"} ")
          .append(s.value().getAsDouble())
          .append('\n');
    }
  }
}
