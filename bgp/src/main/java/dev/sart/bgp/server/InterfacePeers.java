package dev.sart.bgp.server;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.policy.PeerPolicy;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.logging.Logger;

/**
 * Unnumbered neighbours, given by interface (FRR's {@code neighbor eth1 interface}): per interface
 * the neighbour's configuration, {@link NeighborDiscovery} there, and the peer made once the
 * neighbour's link-local address is known, from its Router Advertisements or Solicitations, or from
 * a connection it makes to us over that interface. A new address replaces the peer. Changes run on
 * the speaker's management thread ({@link Host}).
 */
final class InterfacePeers implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(InterfacePeers.class.getName());

  /** What the speaker does for us, each on its management thread. */
  interface Host {
    void addPeer(PeerConfig config, PeerPolicy policy);

    void deletePeer(InetAddress address);

    /** Runs {@code task} on the management thread later (from any thread, without waiting). */
    void later(Runnable task);
  }

  private static final class Entry {
    volatile PeerConfig template;
    volatile PeerPolicy policy;
    final NeighborDiscovery discovery;
    volatile int index; // the interface's, once discovery has opened its socket
    volatile Inet6Address current; // the neighbour's address, once learned

    Entry(PeerConfig template, PeerPolicy policy, NeighborDiscovery discovery) {
      this.template = template;
      this.policy = policy;
      this.discovery = discovery;
    }
  }

  private final Host host;
  private final ThreadFactory threads;
  private final Map<String, Entry> byInterface = new ConcurrentHashMap<>();

  InterfacePeers(Host host, ThreadFactory threads) {
    this.host = host;
    this.threads = threads;
  }

  /** Starts discovery for an unnumbered neighbour (management thread). */
  void add(PeerConfig template, PeerPolicy policy) {
    String ifname = template.interfaceName();
    if (byInterface.containsKey(ifname)) {
      throw new IllegalArgumentException("a peer on interface " + ifname + " exists already");
    }
    Entry[] made = new Entry[1];
    NeighborDiscovery nd =
        new NeighborDiscovery(ifname, threads, (index, address) -> heard(made[0], index, address));
    made[0] = new Entry(template, policy, nd);
    byInterface.put(ifname, made[0]);
    LOG.info(() -> "event=unnumbered-peer-added interface=" + ifname);
  }

  /**
   * A new configuration for the unnumbered neighbour on {@code template}'s interface, for the peer
   * made from now on; returns the address learned there (the caller replaces that peer), or null
   * (management thread).
   */
  InetAddress replace(PeerConfig template, PeerPolicy policy) {
    Entry e = byInterface.get(template.interfaceName());
    if (e == null) {
      throw new IllegalArgumentException("no peer on interface " + template.interfaceName());
    }
    e.template = template;
    e.policy = policy;
    return e.current;
  }

  /** Whether an unnumbered neighbour is configured on {@code ifname}. */
  boolean has(String ifname) {
    return byInterface.containsKey(ifname);
  }

  /** The configured interfaces (any thread). */
  List<String> interfaces() {
    return List.copyOf(byInterface.keySet());
  }

  /**
   * Stops discovery on {@code ifname} and returns the address of the peer made there, or null
   * (management thread; the caller deletes that peer).
   */
  InetAddress remove(String ifname) {
    Entry e = byInterface.remove(ifname);
    if (e == null) {
      throw new IllegalArgumentException("no peer on interface " + ifname);
    }
    e.discovery.close();
    return e.current;
  }

  /**
   * A connection from a link-local address we know no peer for: if it came over the interface of an
   * unnumbered neighbour, that is its address (learned later, on the management thread; the
   * connection is not kept: ours follows once the peer is made). Any thread.
   */
  boolean connectionFrom(Inet6Address remote) {
    if (!remote.isLinkLocalAddress() || remote.getScopeId() == 0) {
      return false;
    }
    for (Entry e : byInterface.values()) {
      if (e.index == remote.getScopeId()) {
        heard(e, remote.getScopeId(), remote);
        return true;
      }
    }
    return false;
  }

  private void heard(Entry e, int index, Inet6Address address) {
    e.index = index;
    if (address.equals(e.current) && e.current.getScopeId() == address.getScopeId()) {
      return; // every advertisement says it again
    }
    host.later(
        () -> {
          if (byInterface.get(e.template.interfaceName()) != e
              || (address.equals(e.current) && e.current.getScopeId() == address.getScopeId())) {
            return;
          }
          Inet6Address before = e.current;
          if (before != null) {
            host.deletePeer(before);
          }
          e.current = address;
          LOG.info(
              () ->
                  "event=unnumbered-peer-learned interface="
                      + e.template.interfaceName()
                      + " address="
                      + address.getHostAddress()
                      + (before == null ? "" : " replaces=" + before.getHostAddress()));
          host.addPeer(e.template.withAddress(address), e.policy);
        });
  }

  @Override
  public void close() {
    byInterface.values().forEach(e -> e.discovery.close());
    byInterface.clear();
  }
}
