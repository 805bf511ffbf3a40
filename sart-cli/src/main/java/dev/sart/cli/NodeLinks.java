package dev.sart.cli;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPCondition;
import dev.sart.proto.v1.ExplainExportResponse;
import dev.sart.proto.v1.Peer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The per-node end of a chain: the node's NodeBGP and speaker, and for each of its BGPPeers the
 * advertisement's entry, the speaker's Adj-RIB-Out for the prefix and the session.
 */
final class NodeLinks {
  /** How many peers on how many nodes the prefix reaches (Adj-RIB-Out of an Established one). */
  static final class Tally {
    int peers;
    int announced;

    /** Peers whose node's speaker could not be asked (unreachable, or another node's). */
    int unasked;

    final TreeSet<String> nodes = new TreeSet<>();

    /** "announced on A of P peer(s)". */
    String announcedOn() {
      return "announced on " + announced + " of " + peers + " peer(s)";
    }

    /** How many of them could not be asked, or "". */
    String unaskedNote() {
      return unasked == 0
          ? ""
          : "; "
              + unasked
              + " not asked (their node's speaker could not be reached or answered as another"
              + " node: below)";
    }
  }

  private NodeLinks() {}

  static Link node(
      KubernetesClient client,
      Speakers speakers,
      String node,
      List<BGPPeer> peers,
      Map<String, AdvertiseStatus> entries,
      String prefix,
      Tally tally) {
    NodeBGP nb = client.resources(NodeBGP.class).withName(node).get();
    if (nb == null || nb.getSpec() == null) {
      return Link.broken(
          "node",
          node,
          "no NodeBGP " + node + ": the node has no BGP speaker configured",
          "label the node so that a ClusterBGP's nodeSelector matches it, or create a NodeBGP");
    }
    String endpoint =
        speakers.endpoint(
            node,
            nb.getSpec().speaker() == null ? "127.0.0.1:5000" : nb.getSpec().speaker().path());
    var conditions = nb.getStatus() == null ? null : nb.getStatus().conditions();
    NodeBGPCondition last =
        conditions == null || conditions.isEmpty() ? null : conditions.getLast();
    Link l =
        Link.ok(
            "node",
            node,
            "NodeBGP AS "
                + nb.getSpec().asn()
                + ", router id "
                + nb.getSpec().routerId()
                + ", speaker "
                + endpoint
                + (last == null ? "" : ", " + last.status() + " (" + last.reason() + ")"));
    if (last != null && last.status() == NodeBGPCondition.Status.Unavailable) {
      l.state = Link.State.broken;
      l.fix =
          "the node's agent could not configure its speaker ("
              + last.reason()
              + "): see the agent's log on "
              + node;
    }
    String other = speakers.notOf(endpoint, nb);
    if (other != null) {
      // its answers would be another node's sessions and Adj-RIB-Outs: the peers are not asked
      tally.peers += peers.size();
      tally.unasked += peers.size();
      String runsOn =
          Speakers.answeringNode(
              speakers.identity(endpoint), client.resources(NodeBGP.class).list().getItems(), node);
      String elsewhere =
          "run explain on "
              + node
              + ", or pass --speaker "
              + node
              + "=HOST:PORT (e.g. through kubectl port-forward)";
      if (runsOn != null) {
        // a node-local address reaching the speaker of the node explain runs on: nothing is known
        // to be wrong with this node, only that it cannot be seen from here
        if (!l.isBroken()) {
          l.state = Link.State.warning;
          l.fix = elsewhere;
        }
        l.summary +=
            "; not asked from here: "
                + endpoint
                + " reaches "
                + runsOn
                + "'s speaker (explain runs on "
                + runsOn
                + ")";
        return l;
      }
      l.state = Link.State.broken;
      l.summary += "; " + other;
      l.fix =
          l.fix != null
              ? l.fix
              : "no node's NodeBGP has the AS and router id it answers with: if it is "
                  + node
                  + "'s own speaker, its agent has not configured it (see the agent's log on "
                  + node
                  + "); else "
                  + elsewhere;
      return l;
    }
    for (BGPPeer p : peers) {
      l.add(peer(speakers, endpoint, p, entries, prefix, tally, node));
    }
    return l;
  }

  /** What the speaker can tell of whether the peer took the route (from what it sends back). */
  static String acceptance(ExplainExportResponse x) {
    String path =
        x.getSentBack().getSegmentsList().stream()
            .flatMap(g -> g.getElmList().stream())
            .map(String::valueOf)
            .collect(java.util.stream.Collectors.joining(" "));
    return switch (x.getAcceptance()) {
      case PEER_SELECTED_OURS -> "the peer selected it (sends it back with AS_PATH " + path + ")";
      case PEER_SELECTED_OTHER ->
          "the peer prefers another route to it (sends back AS_PATH " + path + ")";
      default -> "whether the peer accepted it: unknown (it sends nothing back)";
    };
  }

  private static Link peer(
      Speakers speakers,
      String endpoint,
      BGPPeer p,
      Map<String, AdvertiseStatus> entries,
      String prefix,
      Tally tally,
      String node) {
    String name = p.getMetadata().getName();
    String addr = p.getSpec().addr();
    tally.peers++;
    var conds = p.getStatus() == null ? null : p.getStatus().conditions();
    String apiState =
        conds == null || conds.isEmpty() ? "no state yet" : conds.getLast().status().name();
    AdvertiseStatus entry = entries == null ? null : entries.get(name);
    String head =
        addr
            + " AS "
            + p.getSpec().asn()
            + ", BGPPeer "
            + apiState
            + ", advertisement "
            + (entry == null ? "not targeted" : entry.name());
    if (entries != null && entry == null) {
      return Link.broken(
          "peer",
          name,
          head + ": the controller has not asked for the prefix on this peer yet",
          "check that sartd controller runs and leads (its BGPAdvertisement reconciler fills"
              + " status.peers)");
    }
    Speakers.Answer a = speakers.ask(endpoint, addr, prefix);
    if (a.unreachable()) {
      tally.unasked++;
      return Link.broken(
          "peer",
          name,
          head + "; " + a.error(),
          "run explain where the speaker's API is reachable, or pass --speaker "
              + node
              + "=HOST:PORT (e.g. through kubectl port-forward)");
    }
    if (a.peer() == null) {
      return Link.broken(
          "peer",
          name,
          head + "; " + a.error() + " " + addr,
          "the node's agent adds the neighbour from the BGPPeer: see the agent's log on " + node);
    }
    Peer.State state = a.peer().getState();
    String session = "session " + state.name() + NeighborDetail.why(a.peer());
    ExplainExportResponse x = a.export();
    if (x == null) {
      Link w = new Link("peer", name, Link.State.warning, head + "; " + session + "; " + a.error());
      return w;
    }
    String summary = head + "; " + session + "; " + prefix + ": " + x.getReason();
    return switch (x.getResult()) {
      case ADVERTISED -> {
        tally.announced++;
        tally.nodes.add(node);
        yield Link.ok(
            "peer",
            name,
            head + "; " + session + "; " + prefix + " in its Adj-RIB-Out; " + acceptance(x));
      }
      case NOT_ESTABLISHED ->
          Link.broken(
              "peer",
              name,
              head + "; " + session + ": nothing is sent to it",
              "the router at "
                  + addr
                  + " must peer with this node ("
                  + "its address, the NodeBGP's AS) on TCP 179; check it with"
                  + " `sart bgp neighbor get "
                  + addr
                  + " -e "
                  + endpoint
                  + "` and on the router");
      case NO_ROUTE ->
          Link.broken(
              "peer",
              name,
              summary,
              "the node's agent adds the path when the advertisement names this peer"
                  + (entry == AdvertiseStatus.Advertised
                      ? " (the advertisement says Advertised: the speaker may have restarted;"
                          + " the agent re-adds it)"
                      : "")
                  + ": see the agent's log on "
                  + node);
      case POLICY_REJECTED ->
          Link.broken(
              "peer",
              name,
              summary,
              "change export policy "
                  + x.getPolicy()
                  + " (statement "
                  + x.getStatement()
                  + ") or the neighbour's export policy; `sart bgp neighbor get "
                  + addr
                  + " -e "
                  + endpoint
                  + "` names it");
      default ->
          Link.broken(
              "peer",
              name,
              summary,
              "the speaker keeps the path from this neighbour by a BGP rule: see the reason");
    };
  }
}
