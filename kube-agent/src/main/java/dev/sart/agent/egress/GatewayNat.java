package dev.sart.agent.egress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The egress pod's nftables tables {@code ip sart_egress} and {@code ip6 sart_egress}, replaced as
 * a whole in one transaction ({@code nft -f -}: add, delete, define; the kernel applies it
 * atomically).
 *
 * <ul>
 *   <li>SNAT: what comes out of the tunnel device and leaves by the uplink gets the static address
 *       ({@code snat to}), or the pod's own address ({@code masquerade}) when there is none. The
 *       gateway's own packets (the encapsulated replies, from the pod's address) are left alone.
 *   <li>KEP-0275's reverse path, only on the pod that holds the static address: new connections to
 *       it on a declared port are DNATed to the Service's ClusterIP and port and masqueraded (so
 *       the answer comes back through this pod and conntrack); any other new connection to the
 *       address is rejected (a TCP reset, an ICMP port unreachable for UDP).
 * </ul>
 */
public final class GatewayNat {
  static final String TABLE = "sart_egress";

  /**
   * One reverse-path mapping: {@code protocol} (tcp, udp) {@code port} → {@code to}:{@code toPort}.
   */
  public record Forward(String protocol, int port, InetAddress to, int toPort) {
    public Forward {
      protocol = protocol.toLowerCase(java.util.Locale.ROOT);
      if (!protocol.equals("tcp") && !protocol.equals("udp")) {
        throw new IllegalArgumentException("protocol " + protocol + ": tcp or udp");
      }
    }
  }

  private final List<String> nft;
  private final java.util.function.Function<List<String>, ProcessBuilder> processes;

  /**
   * @param nft the command that runs nft in the pod's namespace ({@code [nft]} inside the pod)
   */
  public GatewayNat(List<String> nft) {
    this(nft, ProcessBuilder::new);
  }

  /** With the process factory (tests: the test bed's guard of declared programs). */
  public GatewayNat(
      List<String> nft, java.util.function.Function<List<String>, ProcessBuilder> processes) {
    this.nft = List.copyOf(nft);
    this.processes = processes;
  }

  /**
   * The ruleset: tables {@code ip sart_egress} and {@code ip6 sart_egress}; the family of {@code
   * source} SNATs to it (and holds the reverse path), the other masquerades (null: both do).
   */
  static String ruleset(String uplink, InetAddress source, List<Forward> forwards) {
    var b = new StringBuilder();
    family(b, "ip", uplink, source instanceof Inet4Address ? source : null, forwards);
    family(b, "ip6", uplink, source instanceof Inet6Address ? source : null, forwards);
    return b.toString();
  }

  private static void family(
      StringBuilder b, String family, String uplink, InetAddress source, List<Forward> all) {
    // a mapping reaches a Service of the static address's family only (no NAT46/64 here)
    var forwards =
        all.stream().filter(f -> (f.to() instanceof Inet6Address) == family.equals("ip6")).toList();
    String daddr = family.equals("ip6") ? "\" ip6 daddr " : "\" ip daddr ";
    b.append("add table ").append(family).append(' ').append(TABLE).append('\n');
    b.append("delete table ").append(family).append(' ').append(TABLE).append('\n');
    b.append("table ").append(family).append(' ').append(TABLE).append(" {\n");
    b.append("  chain postrouting {\n");
    b.append("    type nat hook postrouting priority srcnat; policy accept;\n");
    // both tunnel devices: IPv4 and IPv6 underlays (GatewayTunnel)
    b.append("    iifname { \"")
        .append(EgressIds.GATEWAY_DEVICE)
        .append("\", \"")
        .append(EgressIds.GATEWAY_DEVICE6)
        .append("\" } oifname \"")
        .append(uplink)
        .append("\" ")
        .append(source == null ? "masquerade" : "snat to " + source.getHostAddress())
        .append('\n');
    if (source != null && !forwards.isEmpty()) {
      b.append("    ct status dnat oifname \"").append(uplink).append("\" masquerade\n");
    }
    b.append("  }\n");
    if (source != null) {
      String addr = source.getHostAddress();
      b.append("  chain prerouting {\n");
      b.append("    type nat hook prerouting priority dstnat; policy accept;\n");
      for (var f : forwards) {
        String to = f.to().getHostAddress();
        b.append("    iifname \"")
            .append(uplink)
            .append(daddr)
            .append(addr)
            .append(' ')
            .append(f.protocol())
            .append(" dport ")
            .append(f.port())
            .append(" dnat to ")
            .append(f.to() instanceof Inet6Address ? "[" + to + "]" : to)
            .append(':')
            .append(f.toPort())
            .append('\n');
      }
      b.append("  }\n");
      b.append("  chain forward {\n");
      b.append("    type filter hook forward priority filter; policy accept;\n");
      b.append("    iifname \"")
          .append(uplink)
          .append(daddr)
          .append(addr)
          .append(" ct state new meta l4proto tcp reject with tcp reset\n");
      b.append("    iifname \"")
          .append(uplink)
          .append(daddr)
          .append(addr)
          .append(" ct state new reject\n");
      b.append("  }\n");
    }
    b.append("}\n");
  }

  public void apply(String uplink, InetAddress source, List<Forward> forwards) {
    run(ruleset(uplink, source, forwards));
  }

  /** Removes the table (nothing when there is none). */
  public void remove() {
    var script = new StringBuilder();
    for (var family : List.of("ip", "ip6")) {
      script.append("add table ").append(family).append(' ').append(TABLE).append('\n');
      script.append("delete table ").append(family).append(' ').append(TABLE).append('\n');
    }
    run(script.toString());
  }

  private void run(String script) {
    var command = new ArrayList<>(nft);
    command.add("-f");
    command.add("-");
    try {
      var p = processes.apply(command).redirectErrorStream(true).start();
      try (var in = p.getOutputStream()) {
        in.write(script.getBytes(StandardCharsets.UTF_8));
      }
      var out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("nft -f failed: " + out.strip() + "\n" + script);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", nft) + " (nftables)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running nft", e);
    }
  }
}
