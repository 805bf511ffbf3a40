package dev.sart.bgp.api;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.rib.Attrs;
import dev.sart.bgp.rib.ExportVerdict;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RouteView;
import dev.sart.bgp.wire.AsPath;
import dev.sart.proto.v1.ExplainExportResponse;
import dev.sart.proto.v1.ExplainExportResponse.Acceptance;
import dev.sart.proto.v1.ExplainExportResponse.Result;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code ExplainExport}: a peer's {@link ExportVerdict} for one prefix, as the API says it. */
final class ExportExplanations {
  private ExportExplanations() {}

  static CompletableFuture<ExplainExportResponse> explain(Rib rib, Peer peer, Prefix prefix) {
    State state = peer.status().state();
    return peer.ribPeer()
        .thenCompose(
            rp ->
                rib.query(
                    v -> {
                      var b =
                          ExplainExportResponse.newBuilder().setState(ProtoMapping.state(state));
                      if (rp == null) {
                        // nothing is exported before the session is Established (RFC 4271 §9.2)
                        RouteView r = v.route(prefix);
                        if (r != null && !r.selected().isEmpty()) {
                          b.setPath(ProtoMapping.path(prefix, r.selected().getFirst(), true));
                        }
                        return b.setResult(Result.NOT_ESTABLISHED)
                            .setReason(
                                "the session is "
                                    + ProtoMapping.state(state).name()
                                    + ", not ESTABLISHED: nothing is sent to the peer")
                            .build();
                      }
                      ExportVerdict ev = v.exportVerdict(rp, prefix);
                      if (ev.best() != null) {
                        b.setPath(
                            ev.sent() != null
                                ? ProtoMapping.attrs(prefix, ev.sent()).setBest(true).build()
                                : ProtoMapping.path(prefix, ev.best(), true));
                      }
                      if (ev.kind() == ExportVerdict.Kind.ADVERTISED) {
                        acceptance(b, prefix, v.sentBack(rp, prefix), rp.asn(), v.localAs());
                      }
                      return b.setResult(Result.valueOf(ev.kind().name()))
                          .setReason(reason(ev, rp.asn()))
                          .setPolicy(ev.policy() == null ? "" : ev.policy())
                          .setStatement(ev.statement())
                          .build();
                    }));
  }

  /**
   * Whether the peer took the route, from what it sends back for the prefix: its best path (RFC
   * 4271 §9.1.3: a speaker advertises the routes it selected). {@code AS_PATH <peer> <us> ...} is
   * the route we sent; a path without our AS, or reaching us only further on, is another route;
   * nothing sent back tells nothing (most routers never send a route back to its sender).
   */
  static void acceptance(
      ExplainExportResponse.Builder b, Prefix prefix, List<Attrs> back, long peerAs, long ourAs) {
    if (back.isEmpty()) {
      b.setAcceptance(Acceptance.ACCEPTANCE_UNKNOWN)
          .setAcceptanceReason(
              "the peer sends nothing back for the prefix (most routers do not return a route to"
                  + " its sender): whether it accepted it cannot be told here");
      return;
    }
    Attrs a = back.getFirst();
    for (Attrs x : back) {
      if (viaUs(x.asPath(), peerAs, ourAs)) {
        a = x;
      }
    }
    AsPath path = a.asPath();
    b.setSentBack(ProtoMapping.attrs(prefix, a).build());
    if (viaUs(path, peerAs, ourAs)) {
      b.setAcceptance(Acceptance.PEER_SELECTED_OURS)
          .setAcceptanceReason(
              "the peer sends it back with AS_PATH "
                  + path
                  + ": our route is its best path (we drop its copy as an AS_PATH loop, RFC 4271"
                  + " §9.1.2)");
    } else {
      b.setAcceptance(Acceptance.PEER_SELECTED_OTHER)
          .setAcceptanceReason(
              "the peer sends it back with AS_PATH "
                  + (path.isEmpty() ? "(empty)" : path.toString())
                  + ": its best path is another route, not the one we sent");
    }
  }

  /** {@code <peer> <us> ...}: the first two ASes of the sequence. */
  private static boolean viaUs(AsPath path, long peerAs, long ourAs) {
    List<Long> asns = new java.util.ArrayList<>();
    for (AsPath.Segment s : path.segments()) {
      asns.addAll(s.asns());
    }
    return asns.size() >= 2 && asns.get(0) == peerAs && asns.get(1) == ourAs;
  }

  static String reason(ExportVerdict ev, long peerAs) {
    return switch (ev.kind()) {
      case ADVERTISED -> "in the peer's Adj-RIB-Out";
      case NO_ROUTE -> "no path to the prefix in the Loc-RIB (not originated or not received)";
      case FROM_THIS_PEER -> "the best path was learned from this peer";
      case FAMILY_NOT_NEGOTIATED ->
          "the session does not carry the prefix's address family (capability not negotiated)";
      case AS_PATH_LOOP ->
          "the AS_PATH holds the peer's AS "
              + peerAs
              + ": it would drop the route as a loop (RFC 4271 §9.1.2); see advertise_peer_as";
      case NO_ADVERTISE -> "the route carries NO_ADVERTISE or NO_EXPORT (RFC 1997)";
      case IBGP_SPLIT_HORIZON ->
          "learned over iBGP, not passed to another iBGP peer (RFC 4271 §9.1.1)";
      case NO_NEXT_HOP -> "no local address of the prefix's family towards the peer for NEXT_HOP";
      case POLICY_REJECTED ->
          "export policy "
              + ev.policy()
              + (ev.statement() == 0
                  ? " rejects it by default (no statement matches)"
                  : " rejects it at statement " + ev.statement());
    };
  }
}
