package dev.sart.cni;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The training run for the plugin's JDK 25 AOT cache (JEP 483/514: {@code -XX:AOTCacheOutput}), run
 * at build time by {@code src/build/train.sh}; not used at run time. Two processes:
 *
 * <ul>
 *   <li>{@code Training serve SOCKET}: a stand-in for the agent, answering each request with a
 *       fixed result; its own JVM, not recorded.
 *   <li>{@code Training SOCKET}, the recorded run: every command through the same code a real
 *       invocation takes (netconf scan, framing, the UNIX socket, the error paths) against that
 *       stand-in.
 * </ul>
 *
 * <p>The cache holds every class the recorded run loaded, and the JVM loads all of them at every
 * start, VERSION too; so the recorded run does nothing a plugin call does not: the stand-in's
 * server socket, a temporary directory's name, lambdas of its own would add a few hundred classes
 * (~4 ms per call), and a server channel opened in the same JVM first would initialise the JDK's
 * UNIX-socket classes the ordinary way and leave {@link UnixSockets}' path untrained.
 */
final class Training {
  private Training() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("serve")) {
      serve(Path.of(args[1]));
      return;
    }
    if (args.length != 1) {
      System.err.println("usage: Training serve SOCKET | Training SOCKET");
      Runtime.getRuntime().halt(2);
    }
    String sock = args[0];
    String conf =
        "{\"cniVersion\":\"1.1.0\",\"name\":\"training\",\"type\":\"sart-cni\",\"endpoint\":\"unix://"
            + sock
            + "\",\"timeout\":60,\"prevResult\":{\"ips\":[{\"address\":\"192.0.2.1/32\"}]}}";
    String[] commands = {"VERSION", "ADD", "CHECK", "DEL", "STATUS", "GC", "BOGUS"};
    for (int round = 0; round < 20; round++) {
      for (String command : commands) {
        run(Plugin.SART_CNI, command, "eth0", conf);
      }
      // the chained plugins: the same code with the plugin's name in the frame
      run(Plugin.SART_VETH, "VERSION", "net1", conf);
      run(Plugin.SART_VETH, "ADD", "net1", conf);
      run(Plugin.SART_ROUTER, "VERSION", "net1", conf);
      run(Plugin.SART_ROUTER, "ADD", "net1", conf);
      // the agent is not there: TryAgainLater; and a netconf that is not JSON
      run(Plugin.SART_CNI, "ADD", "eth0", conf.replace(sock, sock + ".absent"));
      run(Plugin.SART_CNI, "ADD", "eth0", "{not json");
    }
    Runtime.getRuntime().halt(0);
  }

  /**
   * Through {@link SartCni#run} with the process environment's own map type plus the {@code CNI_*}
   * variables, as main calls it (iterating it caches its key set's classes).
   */
  private static void run(String plugin, String command, String ifname, String conf)
      throws IOException {
    Map<String, String> env = new HashMap<>();
    // its key set, as Frame.cniVariables reads it (the entry set's classes are not the plugin's)
    Map<String, String> real = System.getenv();
    for (String k : real.keySet()) {
      if (!k.startsWith("CNI_")) {
        env.put(k, real.get(k));
      }
    }
    env.put("CNI_COMMAND", command);
    env.put("CNI_CONTAINERID", "training");
    env.put("CNI_NETNS", "/var/run/netns/training");
    env.put("CNI_IFNAME", ifname);
    env.put("CNI_PATH", "/opt/cni/bin");
    Frame.cniVariables(System.getenv());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SartCni.run(
        plugin,
        new String[0],
        env,
        new ByteArrayInputStream(conf.getBytes(Frame.UTF_8)),
        new PrintStream(out),
        System.err);
  }

  /** The stand-in agent: reads each request by the frame's lengths, as the agent does. */
  private static void serve(Path sock) throws IOException {
    byte[] result =
        "{\"cniVersion\":\"1.1.0\",\"interfaces\":[],\"ips\":[],\"routes\":[]}\n"
            .getBytes(Frame.UTF_8);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      while (true) {
        try (SocketChannel c = server.accept()) {
          InputStream in = Channels.newInputStream(c);
          Frame.Request req = Frame.decodeRequest(in);
          int code = req.env().containsKey("CNI_COMMAND") ? 0 : 1;
          c.write(ByteBuffer.wrap(Frame.encodeResponse(code, result)));
        } catch (IOException e) {
          System.err.println("Training: stand-in agent: " + e);
        }
      }
    }
  }
}
