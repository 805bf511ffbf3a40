package dev.sart.bgp.metrics;

import dev.sart.bgp.bfd.BfdState;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerStatus;
import dev.sart.bgp.rib.PrefixCounters;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Per-peer meters of a {@link BgpServer}: session state, messages by type, flaps, prefix counts.
 * The meters read what the peers and the RIB count anyway ({@link Peer#status()}, {@link
 * Peer#prefixCounters()}) when they are scraped; nothing is done per message.
 *
 * <p>Names follow FRR-K8s ({@code frrk8s_bgp_session_up}, {@code _announced_prefixes_total}, {@code
 * _received_prefixes_total}) and Cilium ({@code _session_state}) under {@code sart_bgp_};
 * sartd/README.md lists them. Call {@link #refresh()} before each scrape: it adds the meters of new
 * peers and removes those of deleted ones.
 */
public final class BgpMetrics {
  /** The message types counted, as the {@code type} label shows them (RFC 4271 §4.1, RFC 2918). */
  private static final Map<Integer, String> MESSAGE_TYPES =
      Map.of(
          Iana.MessageType.OPEN,
          "open",
          Iana.MessageType.UPDATE,
          "update",
          Iana.MessageType.NOTIFICATION,
          "notification",
          Iana.MessageType.KEEPALIVE,
          "keepalive",
          Iana.MessageType.ROUTE_REFRESH,
          "route_refresh");

  private static final List<Family> FAMILIES = List.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST);

  private final BgpServer server;
  private final MeterRegistry registry;
  private final Map<Peer, List<Meter>> meters = new HashMap<>();

  public BgpMetrics(BgpServer server, MeterRegistry registry) {
    this.server = server;
    this.registry = registry;
  }

  /** Brings the meters in line with the peers configured now. */
  public synchronized void refresh() {
    List<Peer> current = List.copyOf(server.peers());
    meters
        .entrySet()
        .removeIf(
            e -> {
              if (current.contains(e.getKey())) {
                return false;
              }
              e.getValue().forEach(registry::remove);
              return true;
            });
    for (Peer p : current) {
      meters.computeIfAbsent(p, this::register);
    }
  }

  private List<Meter> register(Peer peer) {
    Tags tags =
        Tags.of(
            "peer",
            peer.config().address().getHostAddress(),
            "peer_asn",
            Long.toString(peer.config().asn()));
    List<Meter> m = new ArrayList<>();
    m.add(
        gauge(
            "sart.bgp.session.up",
            "BGP session state (1 is Established, 0 is not)",
            tags,
            peer,
            p -> p.status().state() == State.ESTABLISHED ? 1 : 0));
    for (State s : State.values()) {
      m.add(
          gauge(
              "sart.bgp.session.state",
              "1 for the FSM state the session is in (RFC 4271 §8.2.2), 0 for the others",
              tags.and("state", stateName(s)),
              peer,
              p -> p.status().state() == s ? 1 : 0));
    }
    m.add(
        Gauge.builder("sart.bgp.session.uptime", peer, BgpMetrics::uptimeSeconds)
            .tags(tags)
            .baseUnit("seconds")
            .description("Time since the session became Established, 0 when it is not")
            .register(registry));
    m.add(
        FunctionCounter.builder("sart.bgp.session.flaps", peer, p -> p.status().flaps())
            .tags(tags)
            .description("How often the session left Established")
            .register(registry));
    if (peer.config().bfd() != null) {
      // RFC 5880: the peer's BFD session (its state and how often it left Up)
      m.add(
          gauge(
              "sart.bfd.session.up",
              "BFD session state (1 is Up, 0 is not)",
              tags,
              peer,
              p -> p.bfdStatus() != null && p.bfdStatus().state() == BfdState.UP ? 1 : 0));
      m.add(
          FunctionCounter.builder(
                  "sart.bfd.session.downs",
                  peer,
                  p -> p.bfdStatus() == null ? 0 : p.bfdStatus().downs())
              .tags(tags)
              .description("How often the BFD session left Up")
              .register(registry));
    }
    for (Map.Entry<Integer, String> t : MESSAGE_TYPES.entrySet()) {
      int type = t.getKey();
      Tags typed = tags.and("type", t.getValue());
      m.add(
          FunctionCounter.builder("sart.bgp.messages.sent", peer, p -> p.status().sent()[type])
              .tags(typed)
              .description("BGP messages sent, by type")
              .register(registry));
      m.add(
          FunctionCounter.builder(
                  "sart.bgp.messages.received", peer, p -> p.status().received()[type])
              .tags(typed)
              .description("BGP messages received, by type")
              .register(registry));
    }
    PrefixCounters c = peer.prefixCounters();
    for (Family f : FAMILIES) {
      Tags family = tags.and("afi", f.afi() == Iana.Afi.IPV4 ? "ipv4" : "ipv6", "safi", "unicast");
      m.add(
          gauge(
              "sart.bgp.received.prefixes",
              "Prefixes the peer sent and did not withdraw (Adj-RIB-In), rejected ones included",
              family,
              c,
              x -> x.received(f)));
      m.add(
          gauge(
              "sart.bgp.accepted.prefixes",
              "Received prefixes that are candidates for the Loc-RIB",
              family,
              c,
              x -> x.accepted(f)));
      m.add(
          gauge(
              "sart.bgp.announced.prefixes",
              "Prefixes advertised to the peer (Adj-RIB-Out)",
              family,
              c,
              x -> x.advertised(f)));
      m.add(
          gauge(
              "sart.bgp.graceful.restart.stale",
              "1 while the routes of the peer's previous session are kept, stale, as it restarts"
                  + " (RFC 4724 §4.2 helper)",
              family,
              peer,
              p -> p.staleFamilies().contains(f) ? 1 : 0));
    }
    return m;
  }

  private <T> Gauge gauge(String name, String help, Tags tags, T obj, ToDoubleFunction<T> f) {
    return Gauge.builder(name, obj, f).tags(tags).description(help).register(registry);
  }

  private static double uptimeSeconds(Peer p) {
    PeerStatus s = p.status();
    Instant since = s.establishedSince();
    return s.state() != State.ESTABLISHED || since == null
        ? 0
        : Duration.between(since, Instant.now()).toMillis() / 1000.0;
  }

  /**
   * The state as sart's CLI prints it: Idle, Connect, Active, OpenSent, OpenConfirm, Established.
   */
  static String stateName(State s) {
    StringBuilder b = new StringBuilder();
    for (String part : s.name().split("_")) {
      b.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
    }
    return b.toString();
  }
}
