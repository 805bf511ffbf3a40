package dev.sart.controller.bgp;

import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.controller.runtime.Patches;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.BGPPeerTemplate;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.ClusterBGPStatus;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPPeer;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * ClusterBGP → NodeBGP per selected node → BGPPeers. Works per node ({@link NodePlan}: every
 * ClusterBGP that selects the node contributes), so a node in several ClusterBGPs gets one NodeBGP
 * with all their peers, and a node that leaves every selector loses its NodeBGP and generated
 * peers. BGPPeers created by hand (no {@code clusterBGPRef}) are never touched. Node labels are
 * copied onto the NodeBGP. No finalizers: whatever a deleted ClusterBGP or Node leaves behind is
 * found on the next pass over the nodes. A deleted Node's BGPPeers (hand-made ones too) are deleted
 * and the agent's finalizers on them and on its NodeBGP removed (its agent is gone). A NodeBGP
 * without an owner reference to its Node was made by hand and is never edited or deleted.
 */
public final class ClusterBgpReconciler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ClusterBgpReconciler.class.getName());
  private static final String NODE = "node:";
  private static final String CLUSTER = "cluster:";

  private final Informers informers;
  private final Events events;
  private final Loop loop;

  public ClusterBgpReconciler(Informers informers, Events events, Metrics metrics) {
    this.informers = informers;
    this.events = events;
    this.loop = new Loop("clusterbgp", this::reconcile, metrics);
    informers.watch(
        Node.class,
        n -> {
          loop.enqueue(NODE + n.getMetadata().getName());
          enqueueClusters();
        });
    informers.watch(
        ClusterBGP.class,
        c -> {
          loop.enqueue(CLUSTER + c.getMetadata().getName());
          enqueueNodes();
        });
    informers.watch(BGPPeerTemplate.class, t -> enqueueNodes());
    informers.watch(NodeBGP.class, n -> loop.enqueue(NODE + n.getMetadata().getName()));
    informers.watch(
        BGPPeer.class,
        p -> {
          if (p.getSpec() != null) {
            loop.enqueue(NODE + p.getSpec().nodeBGPRef());
          }
        });
  }

  public void start() {
    loop.start();
    enqueueNodes();
    enqueueClusters();
  }

  private void enqueueNodes() {
    informers.list(Node.class).forEach(n -> loop.enqueue(NODE + n.getMetadata().getName()));
    // NodeBGPs of nodes that are gone
    informers.list(NodeBGP.class).forEach(n -> loop.enqueue(NODE + n.getMetadata().getName()));
  }

  private void enqueueClusters() {
    informers
        .list(ClusterBGP.class)
        .forEach(c -> loop.enqueue(CLUSTER + c.getMetadata().getName()));
  }

  private Duration reconcile(String key) {
    if (key.startsWith(NODE)) {
      reconcileNode(key.substring(NODE.length()));
    } else {
      reconcileCluster(key.substring(CLUSTER.length()));
    }
    return null;
  }

  /**
   * {@code status.desiredNodes}: nodes the selector matches; {@code status.nodes}: those that got a
   * NodeBGP from it.
   */
  private void reconcileCluster(String name) {
    var cluster = informers.get(ClusterBGP.class, name);
    if (cluster == null || cluster.getSpec() == null) {
      return;
    }
    var desired = new TreeSet<String>();
    var nodes = new TreeSet<String>();
    var sartOnly = new TreeSet<String>();
    var all = informers.list(ClusterBGP.class);
    for (var node : informers.list(Node.class)) {
      if (NodePlan.matchesAny(cluster.getSpec().nodeSelector(), node.getMetadata().getLabels())
          && !NodePlan.matches(cluster.getSpec().nodeSelector(), node.getMetadata().getLabels())) {
        sartOnly.add(node.getMetadata().getName());
      }
      if (NodePlan.matches(cluster.getSpec().nodeSelector(), node.getMetadata().getLabels())) {
        desired.add(node.getMetadata().getName());
        var plan = NodePlan.of(node, all, t -> informers.get(BGPPeerTemplate.class, t));
        if (plan.clusters().contains(name)) {
          nodes.add(node.getMetadata().getName());
        }
      }
    }
    var status =
        new ClusterBGPStatus(
            List.copyOf(desired), List.copyOf(nodes), NodePlan.sartSelectorWarning(sartOnly));
    if (!status.equals(cluster.getStatus())) {
      informers
          .client()
          .resource(cluster)
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON), Patches.setStatus(status));
    }
  }

  private void reconcileNode(String nodeName) {
    var node = informers.get(Node.class, nodeName);
    var client = informers.client();
    NodePlan plan =
        node == null || node.getMetadata().getDeletionTimestamp() != null
            ? new NodePlan(null, List.of(), Map.of(), List.of())
            : NodePlan.of(
                node,
                informers.list(ClusterBGP.class),
                t -> informers.get(BGPPeerTemplate.class, t));
    for (var problem : plan.problems()) {
      LOG.info("clusterbgp problem node=" + nodeName + " " + problem);
      if (node != null) {
        events.warning(node, "ClusterBGPInvalid", problem);
      }
    }
    var existingPeers = new HashMap<String, BGPPeer>();
    for (var peer : informers.list(BGPPeer.class)) {
      if (peer.getSpec() != null && nodeName.equals(peer.getSpec().nodeBGPRef())) {
        existingPeers.put(peer.getMetadata().getName(), peer);
      }
    }
    var nodeBgp = informers.get(NodeBGP.class, nodeName);
    if (node == null) {
      // the Node is gone, and its agent with it: every BGPPeer of it goes (hand-made ones too: no
      // session can exist without the node), and the agent's finalizers, which nobody would remove
      // any more, are removed from what is being deleted
      for (var peer : existingPeers.values()) {
        if (peer.getMetadata().getDeletionTimestamp() == null) {
          client.resource(peer).delete();
          LOG.info("bgppeer deleted name=" + peer.getMetadata().getName() + " node=" + nodeName);
        } else {
          release(peer, Sart.BGP_PEER_FINALIZER);
        }
      }
      if (nodeBgp != null && nodeBgp.getMetadata().getDeletionTimestamp() != null) {
        release(nodeBgp, Sart.NODE_BGP_FINALIZER);
      }
    }
    // generated peers no longer wanted go; hand-made ones (no clusterBGPRef) stay
    for (var peer : existingPeers.values()) {
      if (peer.getSpec().clusterBGPRef() != null
          && !plan.peers().containsKey(peer.getMetadata().getName())
          && peer.getMetadata().getDeletionTimestamp() == null
          && node != null) {
        client.resource(peer).delete();
        LOG.info("bgppeer deleted name=" + peer.getMetadata().getName() + " node=" + nodeName);
      }
    }
    if (nodeBgp != null && !ours(nodeBgp)) {
      // made by hand: never edited or deleted by the controller (its peers still are)
      LOG.fine(() -> "nodebgp made by hand, left alone name=" + nodeName);
      return;
    }
    if (plan.spec() == null) {
      if (nodeBgp != null && nodeBgp.getMetadata().getDeletionTimestamp() == null) {
        client.resource(nodeBgp).delete();
        LOG.info("nodebgp deleted name=" + nodeName);
      }
      return;
    }
    // the NodeBGP lists the generated peers and the hand-made ones of this node
    var listed = new ArrayList<NodeBGPPeer>();
    plan.peers().forEach((n, s) -> listed.add(new NodeBGPPeer(n, s)));
    existingPeers.values().stream()
        .filter(
            p ->
                p.getSpec().clusterBGPRef() == null
                    && p.getMetadata().getDeletionTimestamp() == null)
        .sorted(java.util.Comparator.comparing(p -> p.getMetadata().getName()))
        .forEach(p -> listed.add(new NodeBGPPeer(p.getMetadata().getName(), p.getSpec())));
    var spec =
        new NodeBGPSpec(plan.spec().asn(), plan.spec().routerId(), plan.spec().speaker(), listed);
    var labels =
        node.getMetadata().getLabels() == null
            ? Map.<String, String>of()
            : node.getMetadata().getLabels();
    if (nodeBgp == null) {
      var created = new NodeBGP(nodeName, spec);
      created.getMetadata().setLabels(labels);
      created
          .getMetadata()
          .setOwnerReferences(
              List.of(
                  new OwnerReferenceBuilder()
                      .withApiVersion("v1")
                      .withKind("Node")
                      .withName(nodeName)
                      .withUid(node.getMetadata().getUid())
                      .build()));
      try {
        nodeBgp = client.resource(created).create();
        LOG.info(
            "nodebgp created name="
                + nodeName
                + " asn="
                + spec.asn()
                + " routerId="
                + spec.routerId());
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        nodeBgp = client.resources(NodeBGP.class).withName(nodeName).get();
      }
    } else if (!spec.equals(nodeBgp.getSpec())
        || !Objects.equals(labels, nodeBgp.getMetadata().getLabels())) {
      nodeBgp =
          LockedEdit.edit(
              client,
              client.resources(NodeBGP.class).withName(nodeName),
              n -> {
                n.setSpec(spec);
                n.getMetadata().setLabels(new HashMap<>(labels));
                return n;
              });
    }
    var refs = List.copyOf(plan.clusters());
    var status = nodeBgp.getStatus();
    if (status == null || !refs.equals(status.clusterBgpRefs())) {
      // only our field: backoff and conditions belong to the agent
      client
          .resource(nodeBgp)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON),
              Patches.setStatusField(status != null, "clusterBgpRefs", refs));
    }
    for (var entry : plan.peers().entrySet()) {
      var existing = existingPeers.get(entry.getKey());
      if (existing == null) {
        var peer = new BGPPeer(entry.getKey(), entry.getValue());
        peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, nodeName));
        try {
          client.resource(peer).create();
          LOG.info("bgppeer created name=" + entry.getKey() + " node=" + nodeName);
        } catch (KubernetesClientException e) {
          if (e.getCode() != 409) {
            throw e;
          }
        }
      } else if (!same(existing.getSpec(), entry.getValue())
          && existing.getSpec().clusterBGPRef() != null) {
        LockedEdit.edit(
            client,
            client.resources(BGPPeer.class).withName(entry.getKey()),
            p -> {
              p.setSpec(entry.getValue());
              return p;
            });
      }
    }
  }

  /**
   * Whether the controller made this NodeBGP: it is owned by its Node (as every NodeBGP the
   * controller creates). One without that owner reference was made by hand.
   */
  static boolean ours(NodeBGP nodeBgp) {
    var owners = nodeBgp.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream()
            .anyMatch(
                o ->
                    "Node".equals(o.getKind())
                        && "v1".equals(o.getApiVersion())
                        && nodeBgp.getMetadata().getName().equals(o.getName()));
  }

  /** Removes an agent's finalizer from an object being deleted whose agent is gone. */
  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> void release(
      T object, String finalizer) {
    if (object.getMetadata().getFinalizers() == null
        || !object.getMetadata().getFinalizers().contains(finalizer)) {
      return;
    }
    try {
      LockedEdit.edit(
          informers.client(),
          informers.client().resource(object),
          o -> {
            o.getMetadata().getFinalizers().remove(finalizer);
            return o;
          });
      LOG.info(
          "finalizer of a gone node's agent removed kind="
              + object.getKind()
              + " name="
              + object.getMetadata().getName());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static boolean same(BGPPeerSpec a, BGPPeerSpec b) {
    return a.equals(b)
        || (Objects.equals(a.asn(), b.asn())
            && Objects.equals(a.addr(), b.addr())
            && Objects.equals(a.interfaceName(), b.interfaceName())
            && Objects.equals(a.holdTime(), b.holdTime())
            && Objects.equals(a.keepaliveTime(), b.keepaliveTime())
            && Objects.equals(
                new HashSet<>(a.groups() == null ? List.of() : a.groups()),
                new HashSet<>(b.groups() == null ? List.of() : b.groups()))
            && Objects.equals(a.speaker(), b.speaker())
            && Objects.equals(a.clusterBGPRef(), b.clusterBGPRef())
            && Objects.equals(a.capabilities(), b.capabilities())
            && Objects.equals(a.bfd(), b.bfd())
            && Objects.equals(a.gracefulRestart(), b.gracefulRestart()));
  }

  @Override
  public void close() {
    loop.close();
  }
}
