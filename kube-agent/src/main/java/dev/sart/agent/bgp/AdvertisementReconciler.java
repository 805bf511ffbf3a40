package dev.sart.agent.bgp;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.AdvertisementAttrs;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.LockedEdit;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * BGPAdvertisement (sart.md §6.5). The controller lists the target peers in {@code status.peers}
 * (NotAdvertised, or Withdraw to take a prefix back); for the entries that are peers of this node
 * the agent moves NotAdvertised to Advertised once the prefix is exported to that peer: the peer is
 * Established, its export policy accepts the prefix and the speaker originates it; Advertised goes
 * back to NotAdvertised when the session goes down (so the entry is true), and Withdraw entries are
 * removed. The speaker originates a prefix while at least one entry of this node's peers targets it
 * (NotAdvertised or Advertised, the session up or not), and withdraws it otherwise. A
 * BGPAdvertisement being deleted (the controller's finalizer waits until no entry is left) is
 * wanted by nobody: the speaker withdraws its prefix and then every entry of this node's peers is
 * removed, whatever its state.
 *
 * <p>AddPath originates a prefix for every peer of the speaker; which peers get it is decided by
 * the per-peer export policies ({@link ExportPolicies}), which the agent brings up to date before
 * this reconciler runs: a peer's policy accepts exactly the prefixes whose entry for it is not
 * Withdraw.
 */
final class AdvertisementReconciler {
  private static final Logger LOG = Logger.getLogger(AdvertisementReconciler.class.getName());

  private final KubernetesClient client;

  /**
   * Prefixes the speaker originates because of us, with the path attributes we gave it (null: read
   * back from the speaker, attributes unknown); null until read back from the speaker.
   */
  private Map<String, AdvertisementAttrs> announced;

  AdvertisementReconciler(KubernetesClient client) {
    this.client = client;
  }

  /**
   * After a speaker restart nothing is announced; it is read back from the speaker on the next
   * pass.
   */
  void forget() {
    announced = null;
  }

  /**
   * The prefixes the speaker originates because of us (read back from the speaker the first time).
   */
  Set<String> originated(Speaker speaker) {
    readBack(speaker);
    return Set.copyOf(announced.keySet());
  }

  private void readBack(Speaker speaker) {
    if (announced == null) {
      announced = new HashMap<>();
      // the speaker's paths do not report every attribute (no communities): originated again with
      // ours at the next pass
      speaker.localPrefixes().forEach(p -> announced.put(p, null));
    }
  }

  /**
   * @param mine whether a BGPPeer name is a live peer of this node
   * @param established whether a BGPPeer name is a peer of this node whose session is Established
   */
  void reconcile(
      List<BGPAdvertisement> adverts,
      Predicate<String> mine,
      Predicate<String> established,
      Speaker speaker) {
    if (speaker != null) {
      readBack(speaker);
    }
    // per prefix the attributes of every advertisement that wants it (Services sharing an address
    // each have one), merged
    Map<String, AdvertisementAttrs> wanted = new HashMap<>();
    Map<BGPAdvertisement, Map<String, AdvertiseStatus>> updates = new LinkedHashMap<>();
    for (BGPAdvertisement a : adverts) {
      if (a.getSpec() == null) {
        continue;
      }
      // a deleted advertisement (its finalizer waits for the agents): nobody wants its prefix, and
      // the entries of this node's peers are removed once the speaker has withdrawn it
      boolean deleted = a.getMetadata().getDeletionTimestamp() != null;
      Map<String, AdvertiseStatus> peers =
          a.getStatus() == null || a.getStatus().peers() == null ? Map.of() : a.getStatus().peers();
      Map<String, AdvertiseStatus> next = new LinkedHashMap<>(peers);
      for (Map.Entry<String, AdvertiseStatus> e : peers.entrySet()) {
        String peer = e.getKey();
        if (!mine.test(peer)) {
          continue;
        }
        if (deleted) {
          next.remove(peer);
          continue;
        }
        switch (e.getValue()) {
          case Withdraw -> next.remove(peer);
          case NotAdvertised -> {
            if (established.test(peer)) {
              next.put(peer, AdvertiseStatus.Advertised);
            }
          }
          case Advertised -> {
            if (!established.test(peer)) {
              next.put(peer, AdvertiseStatus.NotAdvertised);
            }
          }
        }
      }
      // the speaker keeps a prefix while a peer of this node is targeted (NotAdvertised or
      // Advertised), its session up or not: a session that comes back (a graceful restart, RFC
      // 4724 §4.2, or a changed BGPPeer with RFC 8538's N bit) must get it before its End-of-RIB,
      // else the ToR drops the path it kept, stale, and takes it again a pass later
      if (!deleted
          && next.entrySet().stream()
              .anyMatch(e -> mine.test(e.getKey()) && e.getValue() != AdvertiseStatus.Withdraw)) {
        wanted.merge(a.getSpec().cidr(), attrs(a), AdvertisementAttrs::merge);
      }
      if (!next.equals(peers)) {
        updates.put(a, next);
      }
    }
    // the speaker first, then the statuses: an entry says Advertised only once the speaker has the
    // prefix
    for (var e :
        speaker == null ? Set.<Map.Entry<String, AdvertisementAttrs>>of() : wanted.entrySet()) {
      String cidr = e.getKey();
      if (!e.getValue().equals(announced.get(cidr))) {
        // AddPath of an originated prefix replaces its path (implicit withdraw, RFC 4271 §3.1)
        boolean again = announced.containsKey(cidr);
        speaker.addPath(cidr, e.getValue());
        announced.put(cidr, e.getValue());
        LOG.info(
            () ->
                "event="
                    + (again ? "prefix-attributes" : "prefix-announced")
                    + " cidr="
                    + cidr
                    + (e.getValue().isEmpty() ? "" : " attrs=" + e.getValue().toAttrs()));
      }
    }
    for (String cidr : speaker == null ? List.<String>of() : List.copyOf(announced.keySet())) {
      if (!wanted.containsKey(cidr)) {
        speaker.deletePath(cidr);
        announced.remove(cidr);
        LOG.info(() -> "event=prefix-withdrawn cidr=" + cidr);
      }
    }
    updates.forEach(
        (a, next) ->
            LockedEdit.editStatus(
                client,
                client
                    .resources(BGPAdvertisement.class)
                    .inNamespace(a.getMetadata().getNamespace())
                    .withName(a.getMetadata().getName()),
                cur -> {
                  // each changed entry of ours is applied only if the server still has the
                  // value it was decided from (the controller may have written Withdraw
                  // meanwhile); the rest is kept as it is
                  Map<String, AdvertiseStatus> base =
                      a.getStatus() == null || a.getStatus().peers() == null
                          ? Map.of()
                          : a.getStatus().peers();
                  Map<String, AdvertiseStatus> merged =
                      new LinkedHashMap<>(
                          cur.getStatus() == null || cur.getStatus().peers() == null
                              ? Map.of()
                              : cur.getStatus().peers());
                  Set<String> keys = new HashSet<>(base.keySet());
                  keys.addAll(next.keySet());
                  for (String k : keys) {
                    if (java.util.Objects.equals(merged.get(k), base.get(k))
                        && !java.util.Objects.equals(base.get(k), next.get(k))) {
                      if (next.containsKey(k)) {
                        merged.put(k, next.get(k));
                      } else {
                        merged.remove(k);
                      }
                    }
                  }
                  cur.setStatus(new BGPAdvertisementStatus(merged));
                  return cur;
                }));
  }

  /**
   * Without a speaker: the entries of this node's peers are NotAdvertised (or removed when
   * Withdraw).
   */
  void reconcileStatusOnly(List<BGPAdvertisement> adverts, Set<String> mine) {
    reconcile(adverts, mine::contains, peer -> false, null);
  }

  /** Takes every prefix back (the speaker is being left, or this node has no NodeBGP any more). */
  Set<String> announced() {
    return announced == null ? Set.of() : Set.copyOf(announced.keySet());
  }

  /**
   * The advertisement's path attributes; malformed ones (the schema and webhook refuse them) are
   * logged and left out.
   */
  private static AdvertisementAttrs attrs(BGPAdvertisement a) {
    try {
      return a.getSpec().pathAttrs();
    } catch (IllegalArgumentException e) {
      LOG.warning(
          () ->
              "event=advertisement-attrs-invalid name="
                  + a.getMetadata().getName()
                  + " namespace="
                  + a.getMetadata().getNamespace()
                  + " error="
                  + e.getMessage());
      return AdvertisementAttrs.NONE;
    }
  }
}
