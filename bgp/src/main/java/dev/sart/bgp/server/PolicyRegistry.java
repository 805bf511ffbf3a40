package dev.sart.bgp.server;

import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The policies of a speaker by name, as the API and the configuration file define them. Peers hold
 * the policy objects themselves; redefining a policy hands the new one to every peer that uses it
 * (which applies it at once, see {@link Peer#setPolicy}).
 */
public final class PolicyRegistry {
  private final BgpServer server;
  private final Map<String, Policy> byName = new TreeMap<>();

  PolicyRegistry(BgpServer server) {
    this.server = server;
  }

  /** Defines or replaces a policy; peers using the old one get the new one. */
  public synchronized void define(Policy p) {
    Policy old = byName.put(p.name(), p);
    if (old == null) {
      return;
    }
    for (Peer peer : server.peers()) {
      PeerPolicy pp = peer.policy();
      PeerPolicy next = pp;
      if (pp.importPolicy().name().equals(p.name())) {
        next = next.withImport(p);
      }
      if (pp.exportPolicy().name().equals(p.name())) {
        next = next.withExport(p);
      }
      if (next != pp) {
        peer.setPolicy(next);
      }
    }
  }

  /** Removes a policy no peer uses; false when there is none of that name. */
  public synchronized boolean delete(String name) {
    for (Peer peer : server.peers()) {
      PeerPolicy pp = peer.policy();
      if (pp.importPolicy().name().equals(name) || pp.exportPolicy().name().equals(name)) {
        throw new IllegalStateException(
            "policy '" + name + "' is used by peer " + peer.config().name());
      }
    }
    return byName.remove(name) != null;
  }

  /**
   * The policy of this name; an empty name is {@link Policy#ACCEPT_ALL}; an unknown one is an
   * error.
   */
  public synchronized Policy get(String name) {
    if (name == null || name.isEmpty()) {
      return Policy.ACCEPT_ALL;
    }
    Policy p = byName.get(name);
    if (p == null) {
      throw new IllegalArgumentException(
          "no policy '" + name + "' (defined: " + byName.keySet() + ")");
    }
    return p;
  }

  public synchronized List<Policy> all() {
    return List.copyOf(byName.values());
  }
}
