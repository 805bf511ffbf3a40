package dev.sart.agent.bgp;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.proto.v1.Policy;
import dev.sart.proto.v1.PolicyStatement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * Per-peer announcement of the BGPAdvertisements' prefixes (sart.md §6.5: a prefix goes to the
 * advert's target peers, not to every peer of the node) through the speaker's export policies
 * (bgp/docs/policies.md). AddPath originates a prefix for every peer of the speaker at once, so
 * every BGPPeer of this node gets an export policy owned by the agent, {@code
 * sart-agent-export-<BGPPeer name>}, whose statements are, in order:
 *
 * <ol>
 *   <li>accept exactly (prefix-list entries without {@code ge}/{@code le}) the prefixes of the
 *       BGPAdvertisements whose {@code status.peers} has this peer as NotAdvertised or Advertised;
 *   <li>reject exactly every other prefix the agent originates or is about to originate;
 *   <li>no statement matches: accept unchanged. Routes the speaker learnt from other peers
 *       (transit) pass as they did without a policy, unless one has exactly the prefix of an
 *       agent-originated route (the speaker sends its best path per prefix anyway).
 * </ol>
 *
 * <p>Order of the calls in a pass (BgpAgent): the policies first, so that a peer is added with its
 * policy and a prefix is originated only once every peer's policy says whether that peer gets it;
 * then peers, prefixes and statuses; then the policies again, which drops the prefixes no longer
 * originated from the reject lists and deletes the policies of peers that left the speaker. Only a
 * policy whose content changed is sent; the speaker applies a changed export policy to the whole
 * table at once (withdrawing from the peer what no longer passes).
 */
final class ExportPolicies {
  private static final Logger LOG = Logger.getLogger(ExportPolicies.class.getName());
  static final String PREFIX = "sart-agent-export-";

  /** The agent's policies the speaker has, by name; null until read back from the speaker. */
  private Map<String, Policy> applied;

  /** After a speaker restart the speaker has none; read back on the next pass. */
  void forget() {
    applied = null;
  }

  /** The export policy of the BGPPeer {@code peer}. */
  static String name(String peer) {
    return PREFIX + peer;
  }

  /**
   * The prefixes targeted at each live peer of this node: the {@code status.peers} entries that are
   * not Withdraw (every peer of {@code peers} is a key, with an empty set when nothing targets it).
   */
  static Map<String, Set<String>> targets(List<BGPAdvertisement> adverts, Set<String> peers) {
    Map<String, Set<String>> out = new HashMap<>();
    peers.forEach(p -> out.put(p, new TreeSet<>()));
    for (BGPAdvertisement a : adverts) {
      if (a.getSpec() == null
          || a.getSpec().cidr() == null
          || a.getMetadata().getDeletionTimestamp() != null
          || a.getStatus() == null
          || a.getStatus().peers() == null) {
        continue;
      }
      a.getStatus()
          .peers()
          .forEach(
              (peer, s) -> {
                if (s != AdvertiseStatus.Withdraw && out.containsKey(peer)) {
                  out.get(peer).add(a.getSpec().cidr());
                }
              });
    }
    return out;
  }

  /**
   * The policy of one peer: accept {@code accepted}, reject the rest of {@code managed}, accept
   * anything else. A statement with an empty prefix list would match every route, so it is left
   * out.
   */
  static Policy policy(String peer, Set<String> accepted, Set<String> managed) {
    Policy.Builder b = Policy.newBuilder().setName(name(peer)).setDefaultReject(false);
    Set<String> accept = new TreeSet<>(accepted);
    Set<String> reject = new TreeSet<>(managed);
    reject.removeAll(accept);
    if (!accept.isEmpty()) {
      PolicyStatement.Builder s =
          PolicyStatement.newBuilder().setPrefixListName("sart-agent-targets");
      accept.forEach(c -> s.addPrefixList("permit " + c));
      b.addStatements(s);
    }
    if (!reject.isEmpty()) {
      PolicyStatement.Builder s =
          PolicyStatement.newBuilder().setPrefixListName("sart-agent-others").setReject(true);
      reject.forEach(c -> s.addPrefixList("permit " + c));
      b.addStatements(s);
    }
    return b.build();
  }

  /**
   * Brings the agent's policies in the speaker to {@code targets}: one per peer, accepting the
   * peer's prefixes and rejecting the rest of {@code originated} and of every peer's targets.
   *
   * @param prune also delete the agent's policies of peers not in {@code targets} (only once those
   *     peers have left the speaker: a policy in use cannot be deleted)
   */
  void apply(
      Speaker speaker, Map<String, Set<String>> targets, Set<String> originated, boolean prune) {
    if (applied == null) {
      applied = new HashMap<>();
      for (Policy p : speaker.policies()) {
        if (p.getName().startsWith(PREFIX)) {
          applied.put(p.getName(), p);
        }
      }
    }
    Set<String> managed = new TreeSet<>(originated);
    targets.values().forEach(managed::addAll);
    for (Map.Entry<String, Set<String>> e : targets.entrySet()) {
      Policy want = policy(e.getKey(), e.getValue(), managed);
      if (!want.equals(applied.get(want.getName()))) {
        speaker.setPolicy(want);
        applied.put(want.getName(), want);
        LOG.info(
            () ->
                "event=export-policy-set peer="
                    + e.getKey()
                    + " policy="
                    + want.getName()
                    + " accepted="
                    + e.getValue().size()
                    + " rejected="
                    + (managed.size() - e.getValue().size()));
      }
    }
    if (prune) {
      for (String name : List.copyOf(applied.keySet())) {
        if (!targets.containsKey(name.substring(PREFIX.length()))) {
          speaker.deletePolicy(name);
          applied.remove(name);
          LOG.info(() -> "event=export-policy-deleted policy=" + name + " reason=no-peer");
        }
      }
    }
  }
}
