package dev.sart.controller.advert;

import dev.sart.controller.runtime.Events;
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
 * announced because no target peer is Established ({@code NotAnnounced}). The condition is the
 * memory: a restarted controller repeats no Event. Called from the advertisement reconciler's
 * thread only.
 */
final class Announcements {
  private static final Logger LOG = Logger.getLogger(Announcements.class.getName());
  static final String TYPE = "sart.terassyi.net/Announced";

  /** The announcement of a Service's addresses, from its advertisements and the BGPPeers. */
  record State(int targets, int announced, int nodes, boolean anyEstablished) {
    String status() {
      return announced > 0 ? "True" : "False";
    }

    String reason() {
      if (announced > 0) {
        return "Announced";
      }
      if (targets == 0) {
        return "NoTargets";
      }
      return anyEstablished ? "Pending" : "NoEstablishedPeer";
    }

    String message() {
      return switch (reason()) {
        case "Announced" ->
            "announced on " + announced + " of " + targets + " peer(s) on " + nodes + " node(s)";
        case "NoTargets" ->
            "no target peer: no ready endpoint, or no BGPPeer on the nodes that have one";
        case "Pending" -> "waiting for the agents to announce it to " + targets + " peer(s)";
        default -> "cannot be announced: none of the " + targets + " target peer(s) is Established";
      };
    }
  }

  static State of(Collection<BGPAdvertisement> adverts, Collection<BGPPeer> peers) {
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
    return new State(targets, announced, nodes.size(), established);
  }

  private static boolean isEstablished(BGPPeer p) {
    var c = p.getStatus() == null ? null : p.getStatus().conditions();
    return c != null && !c.isEmpty() && c.getLast().status() == BGPPeerCondition.Status.Established;
  }

  private final KubernetesClient client;
  private final Events events;

  Announcements(KubernetesClient client, Events events) {
    this.client = client;
    this.events = events;
  }

  /** Writes the condition and posts the Events when {@code now} differs from what it says. */
  void observe(Service service, State now) {
    Condition before = condition(service);
    if (before != null
        && now.status().equals(before.getStatus())
        && now.reason().equals(before.getReason())
        && now.message().equals(before.getMessage())) {
      return;
    }
    boolean wasTrue = before != null && "True".equals(before.getStatus());
    if (!wasTrue && now.announced() > 0) {
      events.normal(service, "Announced", now.message());
    } else if (wasTrue && now.announced() == 0) {
      events.normal(service, "Withdrawn", "withdrawn everywhere: " + now.message());
    }
    if (now.reason().equals("NoEstablishedPeer")
        && (before == null || !"NoEstablishedPeer".equals(before.getReason()))) {
      events.warning(service, "NotAnnounced", now.message());
    }
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
    try {
      // status.conditions only (status.loadBalancer is the Service reconciler's), the others
      // kept as cached; RFC 6902 "add" sets the member whether or not it exists (§4.1). Not a
      // merge patch: fabric8's mock server appends to lists there, a real one replaces them.
      // resource(service), not withName(...): a patch by name first GETs the Service
      client
          .resource(service)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON),
              Serialization.asJson(
                  List.of(Map.of("op", "add", "path", "/status/conditions", "value", conditions))));
    } catch (KubernetesClientException e) {
      LOG.fine(() -> "announced condition not written: " + e.getMessage());
    }
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
