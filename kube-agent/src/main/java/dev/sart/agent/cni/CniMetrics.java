package dev.sart.agent.cni;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * sart's CNI call meters (sart.md §6.6): {@code sart_agent_cni_call_total{method}} counts every
 * call, {@code sart_agent_cni_call_errors_total{method,code}} the failed ones by CNI error code.
 * {@code method} is the command in lower case ({@code add}, {@code del}, {@code check}, and {@code
 * status}, {@code gc} of CNI 1.1), whether it came over the UNIX socket, the TCP endpoint or gRPC.
 * (sart counted only successful calls in the first: here it is the total, as its name says.)
 */
final class CniMetrics {
  private final MeterRegistry registry;

  CniMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void record(String command, CniService.Response r) {
    String method = command == null ? "unknown" : command.toLowerCase(Locale.ROOT);
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
