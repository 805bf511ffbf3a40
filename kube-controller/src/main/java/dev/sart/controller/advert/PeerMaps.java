package dev.sart.controller.advert;

import dev.sart.crds.AdvertiseStatus;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The controller's half of a BGPAdvertisement's {@code status.peers}: which peers announce it (the
 * agents turn NotAdvertised into Advertised and remove Withdraw once withdrawn). Shared by the
 * Services' and the Egresses' advertisements.
 */
public final class PeerMaps {
  private PeerMaps() {}

  /** The next peer map: targets announced (Withdraw or new → NotAdvertised), others withdrawn. */
  public static Map<String, AdvertiseStatus> next(
      Map<String, AdvertiseStatus> current, Set<String> targets) {
    var next = new TreeMap<String, AdvertiseStatus>(current);
    for (var target : targets) {
      var state = next.get(target);
      if (state == null || state == AdvertiseStatus.Withdraw) {
        next.put(target, AdvertiseStatus.NotAdvertised);
      }
    }
    for (var entry : next.entrySet()) {
      if (!targets.contains(entry.getKey())) {
        entry.setValue(AdvertiseStatus.Withdraw);
      }
    }
    return next;
  }

  /**
   * Without the Withdraw entries of peers that are gone: no agent is left to withdraw and remove
   * them.
   */
  public static Map<String, AdvertiseStatus> withoutGonePeers(
      Map<String, AdvertiseStatus> peers, Predicate<String> peerExists) {
    var out = new TreeMap<String, AdvertiseStatus>(peers);
    out.entrySet()
        .removeIf(e -> e.getValue() == AdvertiseStatus.Withdraw && !peerExists.test(e.getKey()));
    return out;
  }
}
