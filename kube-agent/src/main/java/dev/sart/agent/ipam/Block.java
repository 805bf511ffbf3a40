package dev.sart.agent.ipam;

import dev.sart.net.IpPrefix;
import java.util.Objects;

/**
 * An AddressBlock of this node: a CIDR carved from a pod AddressPool (sart's {@code
 * AddressBlock.spec.cidr} and {@code poolRef}).
 */
public record Block(String pool, IpPrefix cidr) {
  public Block {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(cidr, "cidr");
    if (pool.isEmpty()) {
      throw new IllegalArgumentException("a block needs a pool name: " + cidr);
    }
  }

  /** "default-pod-pool=10.1.0.0/29". */
  public static Block parse(String text) {
    int eq = text.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException("expected POOL=CIDR, not " + text);
    }
    return new Block(text.substring(0, eq), IpPrefix.parse(text.substring(eq + 1)));
  }
}
