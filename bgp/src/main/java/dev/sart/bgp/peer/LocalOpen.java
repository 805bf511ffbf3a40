package dev.sart.bgp.peer;

import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Open;
import java.util.ArrayList;
import java.util.List;

/** The OPEN a peer sends: what it is configured with and what the speaker offers. */
final class LocalOpen {
  private LocalOpen() {}

  /**
   * The OPEN we send: our AS (AS_TRANS when it needs 4 octets), hold time, identifier and
   * capabilities.
   */
  static Open of(Peer peer) {
    List<Capability> caps = new ArrayList<>();
    for (Family f : peer.config.families()) {
      caps.add(new Capability.Multiprotocol(f));
    }
    caps.add(new Capability.RouteRefresh());
    caps.add(Capability.EnhancedRouteRefresh.INSTANCE); // RFC 7313 §3
    // RFC 4724 §3: with no <AFI, SAFI>, we keep no forwarding state across a restart but send and
    // understand End-of-RIB. FRR sends End-of-RIB only to peers with this capability, and ignores
    // their ROUTE-REFRESH until it has ("rcvd route-refresh before EoR"), so without it our
    // requests would never be answered.
    // As a helper (RFC 4724 §4.2) we keep the routes of a peer that restarts; our restart time
    // (§3, configured, 120 s by default) is for peers that would keep ours, which with no AFI/SAFI
    // listed they do not.
    // As the restarting speaker (RFC 4724 §4.1, RestartingSpeaker) every family is listed, with the
    // Forwarding State bit, and the Restart State bit until the restart is complete.
    // Both with RFC 8538's N bit when configured: a session that ends with a NOTIFICATION other
    // than a Hard Reset is a restart too, for us as a helper and for a helper of ours
    // (GracefulNotification).
    RestartingSpeaker restart = peer.speaker.restart();
    caps.add(
        restart != null
            ? restart.capability(peer.config)
            : new Capability.GracefulRestart(
                peer.config.gracefulRestart().notification()
                    ? Capability.GracefulRestart.NOTIFICATION
                    : 0,
                (int) peer.config.gracefulRestart().restartTime().toSeconds(),
                List.of()));
    caps.add(new Capability.FourOctetAs(peer.speaker.localAs()));
    Capability.AddPath addPath = FabricCapabilities.addPath(peer.config);
    if (addPath != null) {
      caps.add(addPath);
    }
    Capability.ExtendedNextHop nextHop = FabricCapabilities.extendedNextHop(peer.config);
    if (nextHop != null) {
      caps.add(nextHop);
    }
    return Open.of(
        peer.speaker.localAs(),
        (int) peer.config.holdTime().toSeconds(),
        peer.speaker.routerId(),
        caps);
  }
}
