package dev.sart.agent.egress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The egress pod's nftables table {@code ip sart_egress}, replaced as a whole in one transaction
 * ({@code nft -f -}: add, delete, define; the kernel applies it atomically).
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

  /** The ruleset: SNAT to {@code source} (null: the pod's own address), the reverse path. */
  static String ruleset(String uplink, InetAddress source, List<Forward> forwards) {
    var b = new StringBuilder();
    b.append("add table ip ").append(TABLE).append('\n');
    b.append("delete table ip ").append(TABLE).append('\n');
    b.append("table ip ").append(TABLE).append(" {\n");
    b.append("  chain postrouting {\n");
    b.append("    type nat hook postrouting priority srcnat; policy accept;\n");
    b.append("    iifname \"")
        .append(EgressIds.GATEWAY_DEVICE)
        .append("\" oifname \"")
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
        b.append("    iifname \"")
            .append(uplink)
            .append("\" ip daddr ")
            .append(addr)
            .append(' ')
            .append(f.protocol())
            .append(" dport ")
            .append(f.port())
            .append(" dnat to ")
            .append(f.to().getHostAddress())
            .append(':')
            .append(f.toPort())
            .append('\n');
      }
      b.append("  }\n");
      b.append("  chain forward {\n");
      b.append("    type filter hook forward priority filter; policy accept;\n");
      b.append("    iifname \"")
          .append(uplink)
          .append("\" ip daddr ")
          .append(addr)
          .append(" ct state new meta l4proto tcp reject with tcp reset\n");
      b.append("    iifname \"")
          .append(uplink)
          .append("\" ip daddr ")
          .append(addr)
          .append(" ct state new reject\n");
      b.append("  }\n");
    }
    b.append("}\n");
    return b.toString();
  }

  public void apply(String uplink, InetAddress source, List<Forward> forwards) {
    run(ruleset(uplink, source, forwards));
  }

  /** Removes the table (nothing when there is none). */
  public void remove() {
    run("add table ip " + TABLE + "\ndelete table ip " + TABLE + "\n");
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
