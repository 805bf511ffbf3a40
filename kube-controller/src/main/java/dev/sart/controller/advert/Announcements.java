package dev.sart.controller.advert;

import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Writes;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * Where a Service's addresses are announced, told on the Service: the condition {@value #TYPE}
 * (True while some peer has it, with "announced on N of T peer(s) on M node(s)") and Events when it
 * is first announced ({@code Announced}), withdrawn everywhere ({@code Withdrawn}) or cannot be
 * announced because no target peer is Established or no peer carries the address's family ({@code
 * NotAnnounced}). The condition is the memory: a restarted controller repeats no Event. Decided on
 * the advertisement reconciler's thread; the PATCH goes out through {@link Writes} (one at a time
 * per Service), and what was last sent is remembered until the informer has it, so that a stale
 * cache repeats neither the write nor the Events. The memory is not trusted for ever: a condition
 * the cached Service still does not show {@link #SETTLE} after it was sent (another writer replaced
 * {@code status}, or the write was lost) is written again, without its Events.
 */
final class Announcements {
  private static final Logger LOG = Logger.getLogger(Announcements.class.getName());
  static final String TYPE = "sart.terassyi.net/Announced";

  /** How long a sent condition may take to show in the cache before it is written again. */
  static final java.time.Duration SETTLE = java.time.Duration.ofSeconds(5);

  /** The announcement of a Service's addresses, from its advertisements and the BGPPeers. */
  record State(
      int targets, int announced, int nodes, boolean anyEstablished, List<String> uncarried) {
    State {
      uncarried = List.copyOf(uncarried);
    }

    State(int targets, int announced, int nodes, boolean anyEstablished) {
      this(targets, announced, nodes, anyEstablished, List.of());
    }

    String status() {
      return announced > 0 ? "True" : "False";
    }

    String reason() {
      if (announced > 0) {
        return "Announced";
      }
      if (targets == 0 && !uncarried.isEmpty()) {
        return "NoPeerForFamily";
      }
      if (targets == 0) {
        return "NoTargets";
      }
      return anyEstablished ? "Pending" : "NoEstablishedPeer";
    }

    String message() {
      var notCarried =
          uncarried.isEmpty()
              ? ""
              : "no BGPPeer carries the family of "
                  + String.join(", ", uncarried)
                  + " (a peer carries its own address's family)";
      return switch (reason()) {
        case "Announced" ->
            "announced on "
                + announced
                + " of "
                + targets
                + " peer(s) on "
                + nodes
                + " node(s)"
                + (notCarried.isEmpty() ? "" : "; not announced: " + notCarried);
        case "NoPeerForFamily" -> "cannot be announced: " + notCarried;
        case "NoTargets" ->
            "no target peer: no ready endpoint, or no BGPPeer on the nodes that have one (and are"
                + " not excluded from external load balancers)";
        case "Pending" -> "waiting for the agents to announce it to " + targets + " peer(s)";
        default -> "cannot be announced: none of the " + targets + " target peer(s) is Established";
      };
    }
  }

  static State of(Collection<BGPAdvertisement> adverts, Collection<BGPPeer> peers) {
    return of(adverts, peers, List.of());
  }

  /**
   * @param uncarried addresses of the Service whose family no BGPPeer (of its groups) carries
   */
  static State of(
      Collection<BGPAdvertisement> adverts,
      Collection<BGPPeer> peers,
      Collection<java.net.InetAddress> uncarried) {
    Map<String, BGPPeer> byName = new java.util.HashMap<>();
    peers.forEach(p -> byName.put(p.getMetadata().getName(), p));
    int targets = 0;
    int announced = 0;
    boolean established = false;
    var nodes = new TreeSet<String>();
    for (var advert : adverts) {
      var status = advert.getStatus();
      if (status == null || status.peers() == null) {
        continue;
      }
      for (var e : status.peers().entrySet()) {
        if (e.getValue() == AdvertiseStatus.Withdraw) {
          continue;
        }
        targets++;
        BGPPeer peer = byName.get(e.getKey());
        if (peer != null && isEstablished(peer)) {
          established = true;
        }
        if (e.getValue() == AdvertiseStatus.Advertised) {
          announced++;
          if (peer != null && peer.getSpec() != null) {
            nodes.add(peer.getSpec().nodeBGPRef());
          }
        }
      }
    }
    return new State(
        targets,
        announced,
        nodes.size(),
        established,
        uncarried.stream().map(dev.sart.net.Ip::format).toList());
  }

  private static boolean isEstablished(BGPPeer p) {
    var c = p.getStatus() == null ? null : p.getStatus().conditions();
    return c != null && !c.isEmpty() && c.getLast().status() == BGPPeerCondition.Status.Established;
  }

  private final KubernetesClient client;
  private final Events events;
  private final Writes writes = new Writes("service-announced", 4);

  /** A condition sent, and when ({@link System#nanoTime()}). */
  private record Sent(State state, long at) {}

  /** Per Service: the condition last sent, until the cached Service shows it. */
  private final Map<String, Sent> sent = new java.util.concurrent.ConcurrentHashMap<>();

  private final long settleNanos;

  Announcements(KubernetesClient client, Events events) {
    this(client, events, SETTLE);
  }

  Announcements(KubernetesClient client, Events events, java.time.Duration settle) {
    this.client = client;
    this.events = events;
    this.settleNanos = settle.toNanos();
  }

  private static boolean says(Condition c, State s) {
    return c != null
        && s.status().equals(c.getStatus())
        && s.reason().equals(c.getReason())
        && s.message().equals(c.getMessage());
  }

  /** The Service {@code key} is gone. */
  void forget(String key) {
    sent.remove(key);
  }

  /**
   * Writes the condition and posts the Events when {@code now} differs from what it says.
   *
   * @return when to look at the Service again while a sent condition is not in the cache yet (it is
   *     written again then if it still is not), else {@code null}
   */
  java.time.Duration observe(Service service, State now) {
    var key = dev.sart.controller.lb.ServiceViews.key(service);
    Condition before = condition(service);
    if (says(before, now)) {
      sent.remove(key);
      return null;
    }
    var last = sent.get(key);
    long at = System.nanoTime();
    if (last != null && now.equals(last.state())) {
      long age = at - last.at();
      if (age < settleNanos) {
        return java.time.Duration.ofNanos(settleNanos - age); // sent; the cache has not caught up
      }
      // sent long ago and still not in the cache: overwritten or lost; the Events went out then
      LOG.fine(() -> "announced condition written again service=" + key);
    } else {
      events(service, before, now);
    }
    var mark = new Sent(now, at);
    sent.put(key, mark);
    write(key, service, before, now, mark);
    return java.time.Duration.ofNanos(settleNanos);
  }

  private void events(Service service, Condition before, State now) {
    boolean wasTrue = before != null && "True".equals(before.getStatus());
    if (!wasTrue && now.announced() > 0) {
      events.normal(service, "Announced", now.message());
    } else if (wasTrue && now.announced() == 0) {
      events.normal(service, "Withdrawn", "withdrawn everywhere: " + now.message());
    }
    if ((now.reason().equals("NoEstablishedPeer") || now.reason().equals("NoPeerForFamily"))
        && (before == null || !now.reason().equals(before.getReason()))) {
      events.warning(service, "NotAnnounced", now.message());
    }
  }

  private void write(String key, Service service, Condition before, State now, Sent mark) {
    String since =
        before != null && now.status().equals(before.getStatus())
            ? before.getLastTransitionTime()
            : Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    var conditions = new ArrayList<Condition>();
    for (Condition c : conditions(service)) {
      if (!TYPE.equals(c.getType())) {
        conditions.add(c);
      }
    }
    conditions.add(
        new ConditionBuilder()
            .withType(TYPE)
            .withStatus(now.status())
            .withReason(now.reason())
            .withMessage(now.message())
            .withLastTransitionTime(since)
            .withObservedGeneration(service.getMetadata().getGeneration())
            .build());
    writes.submit(
        key,
        () -> {
          try {
            // status.conditions only (status.loadBalancer is the Service reconciler's), the others
            // kept as cached; RFC 6902 "add" sets the member whether or not it exists (§4.1). Not
            // a merge patch: fabric8's mock server appends to lists there, a real one replaces
            // them. resource(service), not withName(...): a patch by name first GETs the Service
            client
                .resource(service)
                .subresource("status")
                .patch(
                    PatchContext.of(PatchType.JSON),
                    Serialization.asJson(
                        List.of(
                            Map.of(
                                "op", "add", "path", "/status/conditions", "value", conditions))));
          } catch (KubernetesClientException e) {
            sent.remove(key, mark); // not written: decided again at the Service's next event
            LOG.fine(() -> "announced condition not written: " + e.getMessage());
          }
        });
  }

  void close() {
    writes.close();
  }

  static Condition condition(Service service) {
    return conditions(service).stream()
        .filter(c -> TYPE.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  private static List<Condition> conditions(Service service) {
    var status = service.getStatus();
    return status == null || status.getConditions() == null
        ? List.of()
        : status.getConditions().stream().filter(Objects::nonNull).toList();
  }
}
