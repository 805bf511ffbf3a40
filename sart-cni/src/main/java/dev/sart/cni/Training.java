package dev.sart.cni;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The training run for the plugin's JDK 25 AOT cache (JEP 483/514: {@code -XX:AOTCacheOutput}), run
 * once at build time: every command through the same code a real invocation takes (netconf scan,
 * framing, the UNIX socket, the error paths), against an in-process stand-in that answers each
 * request with a fixed result. Not used at run time.
 */
final class Training {
  private Training() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("sart-cni-training");
    Path sock = dir.resolve("agent.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      Thread agent = Thread.ofPlatform().daemon().start(() -> serve(server));
      String conf =
          "{\"cniVersion\":\"1.1.0\",\"name\":\"training\",\"type\":\"sart-cni\",\"endpoint\":\"unix://"
              + sock
              + "\",\"timeout\":60,\"prevResult\":{\"ips\":[{\"address\":\"192.0.2.1/32\"}]}}";
      // the process environment's own map, as main passes it (its key set's classes are cached too)
      Frame.cniVariables(System.getenv());
      for (int round = 0; round < 20; round++) {
        for (String command :
            new String[] {"VERSION", "ADD", "CHECK", "DEL", "STATUS", "GC", "BOGUS"}) {
          run(
              Map.of(
                  "CNI_COMMAND",
                  command,
                  "CNI_CONTAINERID",
                  "c" + round,
                  "CNI_NETNS",
                  "/var/run/netns/x",
                  "CNI_IFNAME",
                  "eth0",
                  "CNI_PATH",
                  "/opt/cni/bin",
                  "PATH",
                  "/usr/bin"),
              conf);
        }
        // the chained plugins: the same code with the plugin's name in the frame
        for (String plugin : new String[] {Plugin.SART_VETH, Plugin.SART_ROUTER}) {
          for (String command : new String[] {"VERSION", "ADD"}) {
            run(
                plugin,
                Map.of(
                    "CNI_COMMAND",
                    command,
                    "CNI_CONTAINERID",
                    "c" + round,
                    "CNI_NETNS",
                    "/var/run/netns/x",
                    "CNI_IFNAME",
                    "net1"),
                conf);
          }
        }
        // the agent is not there: TryAgainLater
        run(
            Map.of("CNI_COMMAND", "ADD"),
            conf.replace(sock.toString(), dir.resolve("absent.sock").toString()));
        run(Map.of("CNI_COMMAND", "ADD"), "{not json");
      }
      agent.interrupt();
    } finally {
      Files.deleteIfExists(sock);
      Files.deleteIfExists(dir);
    }
  }

  /** Through {@link SartCni#run} with the real environment map type, as main calls it. */
  private static void run(Map<String, String> env, String conf) throws IOException {
    run(Plugin.SART_CNI, env, conf);
  }

  private static void run(String plugin, Map<String, String> env, String conf) throws IOException {
    Map<String, String> real = new java.util.HashMap<>(System.getenv());
    real.keySet().removeIf(k -> k.startsWith("CNI_"));
    real.putAll(env);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SartCni.run(
        plugin,
        new String[0],
        real,
        new ByteArrayInputStream(conf.getBytes(StandardCharsets.UTF_8)),
        new java.io.PrintStream(out),
        System.err);
  }

  private static void serve(ServerSocketChannel server) {
    byte[] result =
        "{\"cniVersion\":\"1.1.0\",\"interfaces\":[],\"ips\":[],\"routes\":[]}\n"
            .getBytes(StandardCharsets.UTF_8);
    while (true) {
      try (SocketChannel c = server.accept()) {
        // read by the frame's lengths, as the agent does: the plugin does not half-close
        InputStream in = Channels.newInputStream(c);
        Frame.Request req = Frame.decodeRequest(in);
        int code = req.env().containsKey("CNI_COMMAND") ? 0 : 1;
        c.write(ByteBuffer.wrap(Frame.encodeResponse(code, result)));
      } catch (IOException e) {
        return;
      }
    }
  }
}
