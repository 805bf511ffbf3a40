package dev.sart.fib.netlink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Node;
import java.util.ArrayList;
import java.util.List;

/** {@code ip -j ...} inside a test namespace: the independent view of the kernel's state. */
final class Oracle {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Oracle() {}

  /** Runs {@code ip -j ARGS} in the node's namespace and parses its output ([] when empty). */
  static JsonNode ip(Node node, String... args) {
    List<String> argv = new ArrayList<>(List.of("ip", "-j"));
    argv.addAll(List.of(args));
    String out = node.exec(argv.toArray(String[]::new)).strip();
    try {
      return JSON.readTree(out.isEmpty() ? "[]" : out);
    } catch (Exception e) {
      throw new AssertionError("cannot parse the output of " + argv + ": " + out, e);
    }
  }

  /** The element of an {@code ip -j link} array whose ifname is {@code name}. */
  static JsonNode link(Node node, String name) {
    JsonNode all = ip(node, "-d", "link", "show", "dev", name);
    if (all.size() != 1) {
      throw new AssertionError("ip link show dev " + name + " gave " + all);
    }
    return all.get(0);
  }
}
