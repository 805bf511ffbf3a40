package dev.sart.agent.bgp;

import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPCondition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * The node agent's Prometheus meters under sart's names (sart.md §6.6), in the registry the daemon
 * serves:
 *
 * <ul>
 *   <li>{@code sart_agent_reconcile_duration_seconds}, {@code sart_agent_reconciliation_total} and
 *       {@code sart_agent_reconciliation_errors_total}, labelled {@code resource="bgp"} (one pass
 *       covers the node's NodeBGP, BGPPeers and BGPAdvertisements together) and {@code instance}
 *       (the node);
 *   <li>{@code sart_agent_bgp_peer_status{peer,status}} 1 for each BGPPeer of the node in its
 *       current state, {@code sart_agent_node_bgp_status{name,status}} 1 for the NodeBGP's newest
 *       condition, {@code sart_agent_node_bgp_backoff_count_total{name}} its {@code
 *       status.backoff}, read from the agent's informer caches at each scrape ({@link #refresh}).
 * </ul>
 */
public final class AgentMetrics {
  private static final String RESOURCE = "bgp";

  private final Supplier<Collection<BGPPeer>> peers;
  private final Supplier<NodeBGP> nodeBgp;
  private final Timer duration;
  private final Counter total;
  private final Counter errors;
  private final MultiGauge peerStatus;
  private final MultiGauge nodeBgpStatus;

  AgentMetrics(
      MeterRegistry registry,
      String node,
      Supplier<Collection<BGPPeer>> peers,
      Supplier<NodeBGP> nodeBgp) {
    this.peers = peers;
    this.nodeBgp = nodeBgp;
    Tags tags = Tags.of("resource", RESOURCE, "instance", node);
    duration =
        Timer.builder("sart.agent.reconcile.duration")
            .tags(tags)
            .description("time of one pass of the agent")
            .publishPercentileHistogram()
            .register(registry);
    total =
        Counter.builder("sart.agent.reconciliation")
            .tags(tags)
            .description("passes of the agent")
            .register(registry);
    errors =
        Counter.builder("sart.agent.reconciliation.errors")
            .tags(tags)
            .description("passes that failed or found the speaker unreachable")
            .register(registry);
    peerStatus =
        MultiGauge.builder("sart.agent.bgp.peer.status")
            .description("1 for the BGPPeer's current state")
            .register(registry);
    nodeBgpStatus =
        MultiGauge.builder("sart.agent.node.bgp.status")
            .description("1 for the NodeBGP's newest condition")
            .register(registry);
    FunctionCounter.builder("sart.agent.node.bgp.backoff.count", this, AgentMetrics::backoff)
        .tag("name", node)
        .description(
            "times the node's speaker was found restarted or gone (NodeBGP status.backoff)")
        .register(registry);
  }

  /** One pass of the agent: how long it took and whether it did its work. */
  void passed(Duration took, boolean ok) {
    total.increment();
    duration.record(took);
    if (!ok) {
      errors.increment();
    }
  }

  /** Brings the status gauges in line with the caches (before each scrape). */
  public void refresh() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (BGPPeer p : peers.get()) {
      BGPPeerCondition c = PeerReconciler.last(p.getStatus());
      if (c != null && p.getMetadata().getDeletionTimestamp() == null) {
        rows.add(
            MultiGauge.Row.of(
                Tags.of("peer", p.getMetadata().getName(), "status", c.status().name()), 1));
      }
    }
    peerStatus.register(rows, true);
    NodeBGP nb = nodeBgp.get();
    NodeBGPCondition c = nb == null ? null : NodeBgpReconciler.last(nb.getStatus());
    nodeBgpStatus.register(
        c == null
            ? List.of()
            : List.of(
                MultiGauge.Row.of(
                    Tags.of("name", nb.getMetadata().getName(), "status", c.status().name()), 1)),
        true);
  }

  private double backoff() {
    NodeBGP nb = nodeBgp.get();
    return nb == null || nb.getStatus() == null || nb.getStatus().backoff() == null
        ? 0
        : nb.getStatus().backoff();
  }
}
