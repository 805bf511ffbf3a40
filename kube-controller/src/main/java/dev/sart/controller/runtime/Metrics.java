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

  /** The text exposition format for {@code GET /metrics}. */
  public String scrape() {
    return registry.scrape();
  }
}
