package dev.sart.controller.advert;

import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * sart's advertisement metrics: {@code sart_controller_bgp_advertisements{type}}, {@code
 * sart_controller_bgp_advertisement_status{name,status}} (peers of each advertisement in each
 * state, from the cache at scrape time) and {@code
 * sart_controller_bgp_advertisement_backoff_count{name}} (which sart declares but never counts),
 * the last two with a {@code namespace} label as well since advertisements of different namespaces
 * can share a name.
 */
final class AdvertisementMetrics implements AutoCloseable {
  private final Informers informers;
  private final Metrics metrics;
  private final List<Meter> meters = new ArrayList<>();

  /**
   * Per advertisement ({@code namespace/name}): how often a peer's entry fell back from Advertised
   * to NotAdvertised.
   */
  private final Map<String, AtomicLong> backoffs = new ConcurrentHashMap<>();

  private final Consumer<StringBuilder> section = this::scrape;

  AdvertisementMetrics(Informers informers, Metrics metrics) {
    this.informers = informers;
    this.metrics = metrics;
    for (var type : AddressType.values()) {
      var label = type == AddressType.SERVICE ? "service" : "pod";
      meters.add(
          Gauge.builder(
                  "sart.controller.bgp.advertisements",
                  informers,
                  i ->
                      i.list(BGPAdvertisement.class).stream()
                          .filter(a -> a.getSpec() != null && a.getSpec().type() == type)
                          .count())
              .tag("type", label)
              .description("BGPAdvertisements")
              .register(metrics.registry()));
    }
    informers
        .of(BGPAdvertisement.class)
        .addEventHandler(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(BGPAdvertisement advert) {}

              @Override
              public void onUpdate(BGPAdvertisement old, BGPAdvertisement now) {
                long resets =
                    backoffs(AdvertisementWriter.peers(old), AdvertisementWriter.peers(now));
                if (resets > 0) {
                  backoffs
                      .computeIfAbsent(AdvertisementWriter.key(now), k -> new AtomicLong())
                      .addAndGet(resets);
                }
              }

              @Override
              public void onDelete(BGPAdvertisement advert, boolean unknown) {
                backoffs.remove(AdvertisementWriter.key(advert));
              }
            });
    metrics.addSection(section);
  }

  /**
   * Peers whose entry went from Advertised back to NotAdvertised: what sart's agent does when a
   * speaker restarted or a session left Established (the route has to be announced again).
   */
  static long backoffs(Map<String, AdvertiseStatus> before, Map<String, AdvertiseStatus> after) {
    return after.entrySet().stream()
        .filter(
            e ->
                e.getValue() == AdvertiseStatus.NotAdvertised
                    && before.get(e.getKey()) == AdvertiseStatus.Advertised)
        .count();
  }

  private void scrape(StringBuilder text) {
    text.append(
            "# HELP sart_controller_bgp_advertisement_status peers of a BGPAdvertisement in each state\n")
        .append("# TYPE sart_controller_bgp_advertisement_status gauge\n");
    for (var advert : informers.list(BGPAdvertisement.class)) {
      var counts = new EnumMap<AdvertiseStatus, Integer>(AdvertiseStatus.class);
      for (var state : AdvertiseStatus.values()) {
        counts.put(state, 0);
      }
      AdvertisementWriter.peers(advert)
          .values()
          .forEach(state -> counts.merge(state, 1, Integer::sum));
      var labels =
          "name=\""
              + Metrics.label(advert.getMetadata().getName())
              + "\",namespace=\""
              + Metrics.label(String.valueOf(advert.getMetadata().getNamespace()))
              + "\"";
      counts.forEach(
          (state, n) ->
              text.append("sart_controller_bgp_advertisement_status{")
                  .append(labels)
                  .append(",status=\"")
                  .append(state.name())
                  .append("\"} ")
                  .append(n)
                  .append('\n'));
    }
    text.append(
            "# HELP sart_controller_bgp_advertisement_backoff_count peer entries of a BGPAdvertisement set back from Advertised to NotAdvertised\n")
        .append("# TYPE sart_controller_bgp_advertisement_backoff_count counter\n");
    backoffs.forEach(
        (key, n) -> {
          int slash = key.indexOf('/');
          text.append("sart_controller_bgp_advertisement_backoff_count{name=\"")
              .append(Metrics.label(key.substring(slash + 1)))
              .append("\",namespace=\"")
              .append(Metrics.label(key.substring(0, slash)))
              .append("\"} ")
              .append(n.get())
              .append('\n');
        });
  }

  @Override
  public void close() {
    meters.forEach(metrics.registry()::remove);
    metrics.removeSection(section);
  }
}
