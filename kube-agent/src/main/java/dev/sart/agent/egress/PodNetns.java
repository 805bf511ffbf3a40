package dev.sart.agent.egress;

import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Finds a pod's network namespace from the node: the named namespace (container runtimes bind them
 * under {@code /var/run/netns}) one of whose interfaces carries the pod's address. The agent's CNI
 * side knows the path at ADD time but keeps nothing a restart would lose; this asks the kernel.
 */
public interface PodNetns {
  Optional<Path> find(InetAddress podAddress);

  /** Searches {@code dir} (normally {@link Netns#NAMED}). */
  static PodNetns in(Path dir) {
    return address -> {
      List<Path> entries;
      try (var s = Files.list(dir)) {
        entries = s.sorted().toList();
      } catch (IOException e) {
        return Optional.empty();
      }
      for (var path : entries) {
        try (var ns = Netns.open(path);
            var nl = Netlink.open(ns)) {
          if (nl.addresses().list().stream().anyMatch(a -> a.address().equals(address))) {
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
