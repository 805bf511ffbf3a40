package dev.sart.fib.daemon;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The daemon's metrics: routes installed per table, netlink errors, reconcile runs (per channel and
 * table), and routes selected per channel. Names follow Prometheus' conventions through Micrometer
 * ({@code sart_fib_routes_installed}, {@code sart_fib_netlink_errors_total}, ...).
 */
final class FibMetrics {
  private final MeterRegistry registry;

  FibMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void installedGauge(String channel, int table, Supplier<Number> count) {
    Gauge.builder("sart.fib.routes.installed", count)
        .description("routes of ours installed in a kernel table")
        .tag("channel", channel)
        .tag("table", Integer.toUnsignedString(table))
        .register(registry);
  }

  void selectedGauge(String channel, Supplier<Number> count) {
    Gauge.builder("sart.fib.routes.selected", count)
        .description("destinations with a selected route in a channel")
        .tag("channel", channel)
        .register(registry);
  }

  Counter netlinkErrors(String channel, int table) {
    return Counter.builder("sart.fib.netlink.errors")
        .description("netlink requests the kernel refused")
        .tag("channel", channel)
        .tag("table", Integer.toUnsignedString(table))
        .register(registry);
  }

  Counter reconciles(String channel, int table) {
    return Counter.builder("sart.fib.reconcile.runs")
        .description("reconciliations of a kernel table")
        .tag("channel", channel)
        .tag("table", Integer.toUnsignedString(table))
        .register(registry);
  }

  Counter publishErrors(String channel, String endpoint) {
    return Counter.builder("sart.fib.bgp.publish.errors")
        .description("AddPath/DeletePath calls that failed")
        .tag("channel", channel)
        .tag("endpoint", endpoint)
        .register(registry);
  }
}
