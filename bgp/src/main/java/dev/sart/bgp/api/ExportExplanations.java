package dev.sart.bgp.api;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.rib.ExportVerdict;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.proto.v1.ExplainExportResponse;
import dev.sart.proto.v1.ExplainExportResponse.Result;
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
                        Rib.RouteView r = v.route(prefix);
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
                      return b.setResult(Result.valueOf(ev.kind().name()))
                          .setReason(reason(ev, rp.asn()))
                          .setPolicy(ev.policy() == null ? "" : ev.policy())
                          .setStatement(ev.statement())
                          .build();
                    }));
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
