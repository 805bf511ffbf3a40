package dev.sart.agent.cni;

import dev.sart.agent.ipam.Ipam;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * sart's CNI call meters (sart.md §6.6): {@code sart_agent_cni_call_total{method}} counts every
 * call, {@code sart_agent_cni_call_errors_total{method,code}} the failed ones by CNI error code.
 * {@code method} is the command in lower case ({@code add}, {@code del}, {@code check}, and {@code
 * status}, {@code gc} of CNI 1.1), whether it came over the UNIX socket, the TCP endpoint or gRPC.
 * (sart counted only successful calls in the first: here it is the total, as its name says.)
 * Additions: {@code sart_agent_cni_call_duration_seconds{method}}, a histogram of the agent's time
 * per call (request read to answer ready, the plugin's JVM start not included), and per pool of
 * this node's blocks {@code sart_agent_pool_addresses{pool}} (usable addresses) and {@code
 * sart_agent_pool_addresses_in_use{pool}}, read from the IPAM at each scrape ({@link #refresh}).
 */
final class CniMetrics {
  private final MeterRegistry registry;
  private final Ipam ipam;
  private final MultiGauge addresses;
  private final MultiGauge inUse;

  CniMetrics(MeterRegistry registry, Ipam ipam) {
    this.registry = registry;
    this.ipam = ipam;
    addresses =
        MultiGauge.builder("sart.agent.pool.addresses")
            .description("usable addresses of this node's blocks of the pool")
            .register(registry);
    inUse =
        MultiGauge.builder("sart.agent.pool.addresses.in.use")
            .description("addresses of this node's blocks of the pool given to pods")
            .register(registry);
    refresh();
  }

  /** The pool gauges from the IPAM as it is now (before each scrape). */
  void refresh() {
    Map<String, Ipam.Usage> usage = ipam.usage();
    addresses.register(
        usage.entrySet().stream()
            .map(e -> MultiGauge.Row.of(Tags.of("pool", e.getKey()), e.getValue().addresses()))
            .toList(),
        true);
    inUse.register(
        usage.entrySet().stream()
            .map(e -> MultiGauge.Row.of(Tags.of("pool", e.getKey()), e.getValue().inUse()))
            .toList(),
        true);
  }

  void record(String command, CniService.Response r, long nanos) {
    String method = command == null ? "unknown" : command.toLowerCase(Locale.ROOT);
    Timer.builder("sart.agent.cni.call.duration")
        .description("the agent's time per CNI call")
        .tag("method", method)
        .publishPercentileHistogram()
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
    Counter.builder("sart.agent.cni.call")
        .description("CNI calls")
        .tag("method", method)
        .register(registry)
        .increment();
    if (r.exitCode() != 0) {
      Counter.builder("sart.agent.cni.call.errors")
          .description("CNI calls that failed, by CNI error code")
          .tag("method", method)
          .tag("code", Integer.toString(code(r)))
          .register(registry)
          .increment();
    }
  }

  private static int code(CniService.Response r) {
    try {
      return CniRequest.JSON.readTree(r.stdout()).path("code").asInt(0);
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
