package dev.sart.agent.bgp;

import dev.sart.crds.LockedEdit;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPCondition;
import dev.sart.crds.NodeBGPStatus;
import dev.sart.crds.Sart;
import dev.sart.proto.v1.BgpInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * NodeBGP (sart.md §6.5): brings the local speaker to the NodeBGP's ASN, router id and multipath,
 * and writes what it found into the status: a condition (newest last) and {@code backoff}, the
 * number of times the speaker was found restarted (AS 0 again) or unreachable after it had been
 * configured. The agent holds the NodeBGP's finalizer: a deleted NodeBGP goes only once its speaker
 * has no neighbour left, and then takes the speaker's configuration with it (ClearBgpInfo).
 */
final class NodeBgpReconciler {
  private static final Logger LOG = Logger.getLogger(NodeBgpReconciler.class.getName());
  static final int MAX_CONDITIONS = 10;

  /** What the speaker looks like after this pass. */
  enum Outcome {
    /** Configured as the NodeBGP says and was so before. */
    READY,
    /**
     * Configured by this pass (fresh speaker: first start, or restarted): everything must be
     * re-applied.
     */
    CONFIGURED,
    /** Runs with another ASN or router id than the NodeBGP's (set by someone else). */
    INVALID,
    /** Not reachable over gRPC. */
    UNREACHABLE
  }

  private final KubernetesClient client;

  NodeBgpReconciler(KubernetesClient client) {
    this.client = client;
  }

  Outcome reconcile(NodeBGP nb, Speaker speaker) {
    long asn = nb.getSpec().asn();
    String routerId = nb.getSpec().routerId();
    boolean multipath = Boolean.TRUE.equals(nb.getSpec().speaker().multipath());
    BgpInfo info;
    try {
      info = speaker.info();
    } catch (StatusRuntimeException e) {
      NodeBGPCondition last = last(nb.getStatus());
      boolean known =
          last != null
              && last.status() == NodeBGPCondition.Status.Unavailable
              && last.reason() == NodeBGPCondition.Reason.NotConfigured;
      // once per outage at INFO; the retries every second at FINE
      LOG.log(
          known ? java.util.logging.Level.FINE : java.util.logging.Level.INFO,
          () ->
              "event=speaker-unreachable node="
                  + nb.getMetadata().getName()
                  + " endpoint="
                  + speaker.endpoint()
                  + " reason=\""
                  + e.getStatus()
                  + "\"");
      record(nb, NodeBGPCondition.Status.Unavailable, NodeBGPCondition.Reason.NotConfigured, false);
      return Outcome.UNREACHABLE;
    }
    Outcome outcome;
    if (info.getAsn() == 0) {
      // a speaker that starts without configuration has AS 0 (sart: the sign of a (re)started
      // speaker)
      speaker.configure(asn, routerId);
      speaker.multipath(multipath);
      LOG.info(
          () ->
              "event=speaker-configured node="
                  + nb.getMetadata().getName()
                  + " asn="
                  + asn
                  + " routerId="
                  + routerId
                  + " multipath="
                  + multipath);
      outcome = Outcome.CONFIGURED;
    } else if (Integer.toUnsignedLong(info.getAsn()) != asn
        || !info.getRouterId().equals(routerId)) {
      LOG.warning(
          () ->
              "event=speaker-invalid node="
                  + nb.getMetadata().getName()
                  + " speakerAsn="
                  + Integer.toUnsignedLong(info.getAsn())
                  + " speakerRouterId="
                  + info.getRouterId()
                  + " asn="
                  + asn
                  + " routerId="
                  + routerId);
      record(
          nb,
          NodeBGPCondition.Status.Unavailable,
          NodeBGPCondition.Reason.InvalidConfiguration,
          false);
      return Outcome.INVALID;
    } else {
      if (info.getMultiPath() != multipath) {
        speaker.multipath(multipath);
      }
      outcome = Outcome.READY;
    }
    // AS 0 on a speaker this NodeBGP had made Available: it restarted behind our back
    record(
        nb,
        NodeBGPCondition.Status.Available,
        NodeBGPCondition.Reason.Configured,
        outcome == Outcome.CONFIGURED);
    return outcome;
  }

  /**
   * Appends the condition when it differs from the newest one. Leaving Available (the speaker went
   * away) counts one back-off; so does configuring a speaker again while the newest condition still
   * says Available ({@code restart}: the speaker restarted before the agent saw it go).
   */
  private void record(
      NodeBGP nb, NodeBGPCondition.Status status, NodeBGPCondition.Reason reason, boolean restart) {
    NodeBGPCondition cached = last(nb.getStatus());
    if (cached != null && cached.status() == status && cached.reason() == reason && !restart) {
      return;
    }
    // decided again on the object as the API server has it now: the cache may lag behind our own
    // writes
    client
        .resources(NodeBGP.class)
        .withName(nb.getMetadata().getName())
        .editStatus(
            cur -> {
              NodeBGPStatus s = cur.getStatus();
              NodeBGPCondition last = last(s);
              boolean wasAvailable =
                  last != null && last.status() == NodeBGPCondition.Status.Available;
              boolean same = last != null && last.status() == status && last.reason() == reason;
              List<NodeBGPCondition> conds =
                  new ArrayList<>(s == null || s.conditions() == null ? List.of() : s.conditions());
              if (!same) {
                conds.add(new NodeBGPCondition(status, reason));
              }
              while (conds.size() > MAX_CONDITIONS) {
                conds.removeFirst();
              }
              long backoff = s == null || s.backoff() == null ? 0 : s.backoff();
              if (wasAvailable && (!same || restart)) {
                backoff++;
                long b = backoff;
                LOG.info(
                    () ->
                        "event=speaker-backoff node="
                            + cur.getMetadata().getName()
                            + " backoff="
                            + b);
              }
              cur.setStatus(
                  new NodeBGPStatus(backoff, s == null ? null : s.clusterBgpRefs(), conds));
              return cur;
            });
  }

  /**
   * sart's agent puts its finalizer on the node's NodeBGP (sart.md §6.1, §6.5). Returns whether the
   * NodeBGP holds it: false when the API server no longer has it, or has it being deleted without
   * it (the agent's cache may still show it as it was), and then nothing of it may be set up: its
   * deletion would never come back to the agent to be undone.
   */
  boolean ensureFinalizer(NodeBGP nb) {
    if (nb.getMetadata().getFinalizers().contains(Sart.NODE_BGP_FINALIZER)) {
      return true;
    }
    NodeBGP now =
        LockedEdit.holdFinalizer(
            client,
            client.resources(NodeBGP.class).withName(nb.getMetadata().getName()),
            Sart.NODE_BGP_FINALIZER);
    return now != null && now.getMetadata().getFinalizers().contains(Sart.NODE_BGP_FINALIZER);
  }

  /** Whether a deleted NodeBGP still waits for this agent (its finalizer is on it). */
  static boolean deleting(NodeBGP nb) {
    return nb.getMetadata().getDeletionTimestamp() != null
        && nb.getMetadata().getFinalizers().contains(Sart.NODE_BGP_FINALIZER);
  }

  /**
   * The clean-up of a deleted NodeBGP, as sart's agent does it (sart.md §6.5): refused while the
   * speaker still has neighbours (the BGPPeers of the node go first; each one's deletion takes its
   * neighbour off the speaker), then ClearBgpInfo (peers, originated paths, AS and router id) and
   * the finalizer released. Returns the neighbours that hold it: empty once released.
   */
  List<String> release(NodeBGP nb, Speaker speaker) {
    String name = nb.getMetadata().getName();
    List<String> neighbours =
        speaker.neighbors().stream().map(dev.sart.proto.v1.Peer::getAddress).sorted().toList();
    if (!neighbours.isEmpty()) {
      return neighbours;
    }
    speaker.clear();
    LockedEdit.edit(
        client,
        client.resources(NodeBGP.class).withName(name),
        cur -> {
          cur.getMetadata().getFinalizers().remove(Sart.NODE_BGP_FINALIZER);
          return cur;
        });
    LOG.info(() -> "event=nodebgp-released node=" + name + " speaker=cleared");
    return List.of();
  }

  /**
   * Counts a speaker restart seen by the peer-state stream breaking while the speaker was
   * Available.
   */
  void restarted(NodeBGP nb) {
    NodeBGPCondition last = last(nb.getStatus());
    if (last != null && last.status() == NodeBGPCondition.Status.Available) {
      record(nb, NodeBGPCondition.Status.Unavailable, NodeBGPCondition.Reason.NotConfigured, false);
    }
  }

  static NodeBGPCondition last(NodeBGPStatus s) {
    return s == null || s.conditions() == null || s.conditions().isEmpty()
        ? null
        : s.conditions().getLast();
  }
}
