package dev.sart.agent.egress;

import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Finds a pod's network namespace from the node. The agent's CNI side knows the path at ADD time
 * but keeps nothing a restart would lose, so this asks the kernel: the node routes the pod's
 * address to the host end of its veth; the pod's namespace is the named one (container runtimes
 * bind them under {@code /var/run/netns}) that holds the other end, i.e. an interface whose index
 * is the host end's peer index, whose own peer index is the host end's, and which carries the pod's
 * address. An address alone is not enough: another namespace may use the same address.
 */
public interface PodNetns {
  Optional<Path> find(InetAddress podAddress);

  /**
   * Searches the namespaces of {@code dir} (normally {@link Netns#NAMED}) whose file name {@code
   * names} accepts, for the peer of the host veth that {@code host} routes {@code podAddress} to.
   */
  static PodNetns in(Path dir, Predicate<String> names, Netlink host) {
    return address -> {
      Link hostEnd;
      try {
        var route = host.routes().get(address);
        if (route == null || route.nextHops().isEmpty()) {
          return Optional.empty();
        }
        var found = host.links().find(route.nextHops().getFirst().index());
        if (found.isEmpty() || !"veth".equals(found.get().kind())) {
          return Optional.empty();
        }
        hostEnd = found.get();
      } catch (RuntimeException e) {
        return Optional.empty();
      }
      List<Path> entries;
      try (var s = Files.list(dir)) {
        entries = s.filter(p -> names.test(p.getFileName().toString())).sorted().toList();
      } catch (IOException e) {
        return Optional.empty();
      }
      for (var path : entries) {
        try (var ns = Netns.open(path);
            var nl = Netlink.open(ns)) {
          var peer = nl.links().find(hostEnd.linkIndex());
          if (peer.isPresent()
              && peer.get().linkIndex() == hostEnd.index()
              && nl.addresses().list(peer.get().index()).stream()
                  .anyMatch(a -> a.address().equals(address))) {
            return Optional.of(path);
          }
        } catch (RuntimeException e) {
          Logger.getLogger(PodNetns.class.getName())
              .fine("netns skipped path=" + path + " reason=" + e.getMessage());
        }
      }
      return Optional.empty();
    };
  }
}
