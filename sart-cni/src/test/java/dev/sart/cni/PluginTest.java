package dev.sart.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin's own behaviour, in-process: what it answers without the agent, and what it forwards.
 */
class PluginTest {
  @TempDir Path dir;

  private record Outcome(int code, String stdout) {}

  private static Outcome run(Map<String, String> env, String conf) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = new Plugin(env, conf.getBytes(StandardCharsets.UTF_8), out).run();
    return new Outcome(code, out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void versionIsAnsweredWithoutTheAgentInTheRequestedVersion() throws Exception {
    for (String v : Plugin.SUPPORTED_VERSIONS) {
      Outcome o =
          run(
              Map.of("CNI_COMMAND", "VERSION"),
              "{\"cniVersion\":\"" + v + "\",\"endpoint\":\"/nonexistent\"}");
      assertEquals(0, o.code);
      assertEquals(
          "{\"cniVersion\":\""
              + v
              + "\",\"supportedVersions\":[\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]}\n",
          o.stdout);
    }
    assertTrue(
        run(Map.of("CNI_COMMAND", "VERSION"), "").stdout.startsWith("{\"cniVersion\":\"1.1.0\""));
  }

  @Test
  void theChainedPluginsAnswerVersionWithTheVersionsThatHavePrevResultAndCheck() throws Exception {
    for (String plugin : List.of(Plugin.SART_VETH, Plugin.SART_ROUTER)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int code =
          new Plugin(
                  plugin,
                  Map.of("CNI_COMMAND", "VERSION"),
                  "{\"cniVersion\":\"0.4.0\"}".getBytes(StandardCharsets.UTF_8),
                  out)
              .run();
      assertEquals(0, code);
      assertEquals(
          "{\"cniVersion\":\"0.4.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\",\"1.1.0\"]}\n",
          out.toString(StandardCharsets.UTF_8));
    }
  }

  @Test
  void aChainedPluginNamesItselfInTheFrameAndSartCniSendsTheFrameAsBefore() throws Exception {
    Path sock = dir.resolve("agent.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      String conf = "{\"cniVersion\":\"1.1.0\",\"endpoint\":\"" + sock + "\"}";
      for (String plugin : List.of(Plugin.SART_VETH, Plugin.SART_ROUTER, "sart-cni", "renamed")) {
        AtomicReference<Frame.Request> seen = new AtomicReference<>();
        Thread agent =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try (SocketChannel c = server.accept()) {
                        seen.set(Frame.decodeRequest(Channels.newInputStream(c)));
                        c.write(ByteBuffer.wrap(Frame.encodeResponse(0, new byte[0])));
                      } catch (Exception e) {
                        throw new RuntimeException(e);
                      }
                    });
        int code =
            new Plugin(
                    plugin,
                    Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "abc"),
                    conf.getBytes(StandardCharsets.UTF_8),
                    new ByteArrayOutputStream())
                .run();
        agent.join();
        assertEquals(0, code);
        Map<String, String> want =
            Plugin.chained(plugin)
                ? Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "abc", Frame.PLUGIN, plugin)
                : Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "abc");
        assertEquals(want, seen.get().env(), plugin);
      }
    }
  }

  @Test
  void anAbsentAgentSocketIsTryAgainLaterAndForStatusNotAvailable() throws Exception {
    String conf = "{\"cniVersion\":\"1.0.0\",\"endpoint\":\"" + dir.resolve("absent.sock") + "\"}";
    Outcome add = run(Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "x"), conf);
    assertEquals(1, add.code);
    assertTrue(
        add.stdout.startsWith(
            "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"the sart agent is not reachable"),
        add.stdout);
    Outcome status = run(Map.of("CNI_COMMAND", "STATUS"), conf.replace("1.0.0", "1.1.0"));
    assertTrue(status.stdout.startsWith("{\"cniVersion\":\"1.1.0\",\"code\":50,"), status.stdout);
  }

  @Test
  void badInputGetsTheSpecErrorCodes() throws Exception {
    assertTrue(
        run(Map.of(), "{}").stdout.contains("\"code\":4,\"msg\":\"CNI_COMMAND is not set\""));
    assertTrue(run(Map.of("CNI_COMMAND", "FROB"), "{}").stdout.contains("\"code\":4,"));
    Outcome garbage = run(Map.of("CNI_COMMAND", "ADD"), "{\"cniVersion\":\"1.0.0\",");
    assertEquals(1, garbage.code);
    assertTrue(garbage.stdout.contains("\"code\":6,"), garbage.stdout);
    for (String bad : List.of("http://localhost", "https://localhost:6000", "localhost:6000")) {
      Outcome o =
          run(
              Map.of("CNI_COMMAND", "ADD"),
              "{\"cniVersion\":\"1.0.0\",\"endpoint\":\"" + bad + "\"}");
      assertTrue(o.stdout.contains("\"code\":7,"), bad + ": " + o.stdout);
    }
  }

  /** sart's netconf names the agent's TCP endpoint: the same frames go there. */
  @Test
  void sartsHttpEndpointReachesTheAgentOverTcp() throws Exception {
    AtomicReference<Frame.Request> seen = new AtomicReference<>();
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
      int port = ((java.net.InetSocketAddress) server.getLocalAddress()).getPort();
      Thread agent =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (SocketChannel c = server.accept()) {
                      seen.set(Frame.decodeRequest(Channels.newInputStream(c)));
                      c.write(
                          ByteBuffer.wrap(
                              Frame.encodeResponse(0, "ok".getBytes(StandardCharsets.UTF_8))));
                    } catch (Exception e) {
                      throw new RuntimeException(e);
                    }
                  });
      String conf =
          "{\"cniVersion\":\"1.0.0\",\"endpoint\":\"http://127.0.0.1:"
              + port
              + "\",\"timeout\":60}";
      Outcome o = run(Map.of("CNI_COMMAND", "DEL", "CNI_CONTAINERID", "abc"), conf);
      agent.join();
      assertEquals(0, o.code, o.stdout);
      assertEquals("ok", o.stdout);
      assertEquals("DEL", seen.get().env().get("CNI_COMMAND"));
    }
    // nobody listening there: the runtime is told to try again, as with an absent socket
    int free;
    try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      free = s.getLocalPort();
    }
    Outcome absent =
        run(
            Map.of("CNI_COMMAND", "ADD"),
            "{\"cniVersion\":\"1.0.0\",\"endpoint\":\"http://127.0.0.1:" + free + "\"}");
    assertTrue(absent.stdout.contains("\"code\":11,"), absent.stdout);
  }

  @Test
  void otherCommandsGoToTheAgentWithTheCniEnvironmentAndTheRawNetconf() throws Exception {
    Path sock = dir.resolve("agent.sock");
    AtomicReference<Frame.Request> seen = new AtomicReference<>();
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      Thread agent =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (SocketChannel c = server.accept()) {
                      seen.set(
                          Frame.decodeRequest(
                              Channels.newInputStream(
                                  c))); // by its lengths: the plugin does not half-close
                      c.write(
                          ByteBuffer.wrap(
                              Frame.encodeResponse(
                                  7, "result bytes".getBytes(StandardCharsets.UTF_8))));
                    } catch (Exception e) {
                      throw new RuntimeException(e);
                    }
                  });
      String conf =
          "{\"cniVersion\":\"1.0.0\",\"endpoint\":\"unix://" + sock + "\",\"x\":{\"y\":[1,\"}\"]}}";
      Outcome o =
          run(Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "abc", "HOME", "/root"), conf);
      agent.join();
      assertEquals(7, o.code);
      assertEquals("result bytes", o.stdout);
      assertEquals(Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "abc"), seen.get().env());
      assertEquals(conf, new String(seen.get().stdin(), StandardCharsets.UTF_8));
    }
  }

  @Test
  @Timeout(30)
  void anAgentThatDoesNotReadALargeRequestIsSartsTimeoutError() throws Exception {
    // more than the socket takes at once: the write blocks, and the watchdog must already run
    assertTimeoutError(",\"padding\":\"" + "a".repeat(4 << 20) + "\"", (c, done) -> done.await());
  }

  @Test
  @Timeout(30)
  void anAgentThatDoesNotAnswerInTimeIsSartsTimeoutError() throws Exception {
    assertTimeoutError(
        "",
        (c, done) -> {
          Frame.decodeRequest(Channels.newInputStream(c));
          c.read(ByteBuffer.allocate(1)); // answers nothing; returns when the plugin gives up
        });
  }

  /** What a stand-in agent does with the connection it accepted; {@code done}: the test is over. */
  private interface AgentSide {
    void serve(SocketChannel c, java.util.concurrent.CountDownLatch done) throws Exception;
  }

  /**
   * An ADD (netconf timeout 0.3 s, plus {@code moreConf}) against an agent that accepts and then
   * does {@code agentSide}: sart's timeout error (code 110), not before the timeout.
   */
  private void assertTimeoutError(String moreConf, AgentSide agentSide) throws Exception {
    Path sock = dir.resolve("slow.sock");
    var done = new java.util.concurrent.CountDownLatch(1);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      Thread agent =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (SocketChannel c = server.accept()) {
                      agentSide.serve(c, done);
                    } catch (Exception e) {
                      // the plugin closed the connection, or the test is over
                    }
                  });
      long start = System.nanoTime();
      Outcome o =
          run(
              Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "abc"),
              "{\"cniVersion\":\"1.0.0\",\"endpoint\":\""
                  + sock
                  + "\",\"timeout\":0.3"
                  + moreConf
                  + "}");
      long took = System.nanoTime() - start;
      done.countDown();
      agent.join();
      assertEquals(1, o.code);
      assertTrue(o.stdout.contains("\"code\":110,"), o.stdout);
      assertTrue(took >= 300_000_000L, "gave up before the timeout");
    }
  }

  @Test
  void theSocketCodesRandomSourceReadsTheKernel() {
    UnixSockets.Urandom r = new UnixSockets.Urandom();
    byte[] a = new byte[32];
    byte[] b = new byte[32];
    r.engineNextBytes(a);
    r.engineNextBytes(b);
    assertFalse(java.util.Arrays.equals(a, b), "two draws of 32 random bytes were equal");
  }

  @Test
  void netconfScannerReadsOnlyTheTopLevelKeys() throws Exception {
    Netconf c =
        Netconf.parse(
            ("{\"name\":\"n\",\"plugins\":[{\"endpoint\":\"/inner\"}],\"cniVersion\":\"0.4.0\","
                    + "\"endpoint\":\"/var/run/sart.sock\",\"timeout\":2.5,\"esc\":\"a\\\"\\u00e9\"}")
                .getBytes(StandardCharsets.UTF_8));
    assertEquals(new Netconf("0.4.0", "/var/run/sart.sock", 2.5), c);
    for (String bad :
        List.of(
            "",
            "[]",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\":1} x",
            "{\"timeout\":\"10\"}",
            "{\"a\":tru}")) {
      assertThrows(
          Netconf.DecodeException.class,
          () -> Netconf.parse(bad.getBytes(StandardCharsets.UTF_8)),
          bad);
    }
  }

  @Test
  void netconfNumbersFollowJsonsGrammarAndReadAsParseDoubleDoes() {
    // RFC 8259 §6; the scanner's own reading, within a few units in the last place of the JDK's
    for (String n :
        List.of(
            "0",
            "-0",
            "60",
            "2.5",
            "0.3",
            "0.0003",
            "1e3",
            "1E+3",
            "25e-1",
            "-1.5e2",
            "123456789012",
            "1234567890123456789012",
            "0.000000000000000000012345678901234567890",
            "1e400")) {
      double expected = Double.parseDouble(n);
      double got = Netconf.number(n);
      assertEquals(expected, got, Math.ulp(expected) * 8, n);
    }
    for (String bad :
        List.of("", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1.5.2", "0x10", "1f", "--1", "1 ")) {
      assertTrue(Double.isNaN(Netconf.number(bad)), bad);
    }
  }

  @Test
  void installerCopiesThePluginWithItsTimesAndWritesTheConflist() throws Exception {
    Path src = Files.createDirectories(dir.resolve("src"));
    Path bin = dir.resolve("bin");
    Path conf = Files.createDirectories(dir.resolve("net.d"));
    Files.writeString(conf.resolve("05-old.conflist"), "{}");
    for (String b : Installer.DEFAULT_BINARIES) {
      Files.writeString(src.resolve(b), "content of " + b);
    }
    String netconf =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"sart-network\",\"plugins\":[{\"type\":\"sart-cni\"}]}";
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    int code =
        Installer.run(
            new String[] {
              "--bin-dir", bin.toString(), "--conf-dir=" + conf, "--src-bin-dir", src.toString()
            },
            Map.of("CNI_NETCONF", netconf),
            new PrintStream(log));
    assertEquals(0, code, log.toString());
    for (String b : Installer.DEFAULT_BINARIES) {
      assertEquals("content of " + b, Files.readString(bin.resolve(b)));
      assertEquals(
          Files.getLastModifiedTime(src.resolve(b)), Files.getLastModifiedTime(bin.resolve(b)));
    }
    assertEquals(List.of(conf.resolve("10-netconf.conflist")), Files.list(conf).toList());
    assertEquals(netconf, Files.readString(conf.resolve("10-netconf.conflist")));
    // an image without the chained plugins installs sart-cni all the same
    Path old = Files.createDirectories(dir.resolve("old"));
    Path oldBin = dir.resolve("old-bin");
    for (String b : List.of("sart-cni.jar", "sart-cni.aot", "sart-cni")) {
      Files.writeString(old.resolve(b), "content of " + b);
    }
    ByteArrayOutputStream oldLog = new ByteArrayOutputStream();
    assertEquals(
        0,
        Installer.run(
            new String[] {
              "--bin-dir", oldBin.toString(), "--conf-dir=" + conf, "--src-bin-dir", old.toString()
            },
            Map.of("CNI_NETCONF", netconf),
            new PrintStream(oldLog)),
        oldLog.toString());
    assertTrue(Files.exists(oldBin.resolve("sart-cni")));
    assertFalse(Files.exists(oldBin.resolve("sart-veth")));
    assertTrue(oldLog.toString().contains("sart-veth is not installed"), oldLog.toString());
    assertEquals(
        1,
        Installer.run(
            new String[] {
              "--src-bin-dir", dir.resolve("none").toString(), "--bin-dir", bin.toString()
            },
            Map.of(),
            new PrintStream(new ByteArrayOutputStream())));
  }
}
