package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.cni.Frame;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CNI installer of the cni/dual DaemonSet, run from the image as its init container runs it,
 * into an empty directory standing for a node: a root file system with only {@code /bin/sh} and the
 * C library (no Java anywhere). The plugin it installed is then called there as a container runtime
 * calls it: VERSION, and an ADD answered by a stand-in for the agent on the node's socket.
 */
class CniInstallerTest {
  private static final String NETCONF =
      """
      {"cniVersion":"1.1.0","name":"sart-network","plugins":[{"type":"sart-cni","endpoint":"/run/sart.sock","timeout":60}]}""";

  /** What a runtime gives the plugin out of the conflist: its own entry, with name and version. */
  private static final String PLUGIN_CONF =
      """
      {"cniVersion":"1.1.0","name":"sart-network","type":"sart-cni","endpoint":"/run/sart.sock","timeout":60}""";

  @TempDir static Path work;
  private static Path root;
  private static Path host;

  @BeforeAll
  static void unpackAndMakeANode() throws IOException {
    root = ImageRoot.unpack(work).root();
    // the node, inside the image's tree so that the init container (chroot into the image) sees it
    // at /host as through its hostPath volumes; the node itself has a shell and libc, nothing else
    host = Files.createDirectories(root.resolve("host"));
    for (String d : List.of("bin", "lib", "lib64")) {
      Shell.run("cp", "-a", root.resolve(d).toString(), host.toString());
    }
    for (String d : List.of("proc", "run", "opt/cni/bin", "etc/cni/net.d")) {
      Files.createDirectories(host.resolve(d));
    }
  }

  /** As the DaemonSet's cni-installer container: root, the image's root file system. */
  private static Shell.Result installer() {
    return Shell.exec(
        List.of(
            "env",
            "-i",
            "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
            "CNI_NETCONF=" + NETCONF,
            "unshare",
            "--mount",
            "--pid",
            "--fork",
            "--mount-proc=" + root.resolve("proc"),
            "chroot",
            root.toString(),
            "/opt/sart/cni/sart-cni",
            "cni-installer",
            "--src-bin-dir",
            "/opt/sart/cni",
            "--bin-dir",
            "/host/opt/cni/bin",
            "--conf-dir",
            "/host/etc/cni/net.d"),
        null);
  }

  /** As a container runtime on the node: the plugin by its path, the CNI_* environment only. */
  private static Shell.Result plugin(String stdin, String... cniEnv) {
    return pluginNamed("sart-cni", stdin, cniEnv);
  }

  /** The plugin {@code name} ({@code sart-cni}, or a chained one) as a runtime runs it. */
  private static Shell.Result pluginNamed(String name, String stdin, String... cniEnv) {
    List<String> cmd = new ArrayList<>(List.of("env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"));
    cmd.addAll(List.of(cniEnv));
    cmd.addAll(
        List.of(
            "unshare",
            "--mount",
            "--pid",
            "--fork",
            "--mount-proc=" + host.resolve("proc"),
            "chroot",
            host.toString(),
            "/opt/cni/bin/" + name));
    return Shell.exec(cmd, stdin);
  }

  @Test
  void theInstalledPluginAnswersOnANodeWithoutJavaAndAnUpgradeReplacesAnOlderOne()
      throws Exception {
    // an older install: a launcher, a jar and a runtime directory of another layout
    Path bin = host.resolve("opt/cni/bin");
    Files.writeString(bin.resolve("sart-cni"), "#!/bin/sh\necho old\n");
    Files.writeString(bin.resolve("sart-cni.jar"), "old");
    Files.createDirectories(bin.resolve("sart-cni.jre/bin"));
    Files.writeString(host.resolve("etc/cni/net.d/05-other.conflist"), "{}");

    Shell.Result r = installer();
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(Files.isSymbolicLink(bin.resolve("sart-cni.jre")), r.stderr());
    assertEquals(
        List.of("10-netconf.conflist"),
        Files.list(host.resolve("etc/cni/net.d")).map(p -> p.getFileName().toString()).toList());
    assertEquals(NETCONF, Files.readString(host.resolve("etc/cni/net.d/10-netconf.conflist")));
    try (Stream<Path> files = Files.walk(host)) {
      assertEquals(
          List.of(),
          files
              .filter(p -> p.getFileName().toString().equals("java"))
              .filter(p -> !p.startsWith(bin))
              .toList(),
          "no Java on the node but the plugin's");
    }

    var version = plugin("{\"cniVersion\":\"1.0.0\"}", "CNI_COMMAND=VERSION");
    assertEquals(0, version.exitCode(), version.stdout() + version.stderr());
    assertTrue(version.stdout().contains("\"supportedVersions\":[\"0.3.0\""), version.stdout());
    // and from the image's AOT cache, copied beside it with the runtime it was trained on:
    // AOTMode=on makes a JVM that cannot use it exit
    var cached =
        plugin(
            "{\"cniVersion\":\"1.0.0\"}", "CNI_COMMAND=VERSION", "JDK_JAVA_OPTIONS=-XX:AOTMode=on");
    assertEquals(0, cached.exitCode(), cached.stdout() + cached.stderr());
    assertEquals(version.stdout(), cached.stdout());
    // the chained plugins: the same launcher under their names, installed beside it
    for (String chained : List.of("sart-veth", "sart-router")) {
      Shell.Result v = pluginNamed(chained, "{\"cniVersion\":\"1.0.0\"}", "CNI_COMMAND=VERSION");
      assertEquals(0, v.exitCode(), chained + ": " + v.stdout() + v.stderr());
      assertTrue(v.stdout().contains("\"supportedVersions\":[\"0.4.0\""), v.stdout());
    }

    // installed again (a restarted init container): the same runtime is not copied again
    r = installer();
    assertEquals(0, r.exitCode(), r.stderr());
    assertFalse(r.stderr().contains("copied"), r.stderr());
  }

  @Test
  void theInstalledPluginForwardsAnAddToTheAgentOnTheNodesSocket() throws Exception {
    Shell.Result r = installer();
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    String result =
        "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
            + "\"ips\":[{\"address\":\"203.0.113.130/32\",\"interface\":0}]}";
    Path socket = host.resolve("run/sart.sock");
    Files.deleteIfExists(socket);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      // the agent's side of the framing (Frame, which the agent uses): one request, one response
      CompletableFuture<Frame.Request> agent =
          CompletableFuture.supplyAsync(
              () -> {
                try (SocketChannel c = server.accept()) {
                  Frame.Request req = Frame.decodeRequest(Channels.newInputStream(c));
                  Channels.newOutputStream(c)
                      .write(Frame.encodeResponse(0, result.getBytes(StandardCharsets.UTF_8)));
                  return req;
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      // from the plugin's AOT cache (VERSION's is another): a JVM that cannot use it exits
      var add =
          plugin(
              PLUGIN_CONF,
              "JDK_JAVA_OPTIONS=-XX:AOTMode=on",
              "CNI_COMMAND=ADD",
              "CNI_CONTAINERID=c0ffee",
              "CNI_NETNS=/var/run/netns/pod",
              "CNI_IFNAME=eth0",
              "CNI_PATH=/opt/cni/bin");
      assertEquals(0, add.exitCode(), add.stdout() + add.stderr());
      assertEquals(result, add.stdout().strip());
      Frame.Request req = agent.get(60, TimeUnit.SECONDS);
      assertEquals("ADD", req.env().get("CNI_COMMAND"));
      assertEquals("c0ffee", req.env().get("CNI_CONTAINERID"));
      assertEquals(PLUGIN_CONF, new String(req.stdin(), StandardCharsets.UTF_8));
    }
  }
}
