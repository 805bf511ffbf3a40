package dev.sart.cni;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code sart-cni cni-installer}: what sart's {@code cni-installer} does in the agent's init
 * container. Copies the plugin from {@code --src-bin-dir} (default /host/opt/cni/bin) to {@code
 * --bin-dir} (/opt/cni/bin), then writes the configuration: {@code $CNI_NETCONF} as {@code
 * 10-netconf.conflist} in {@code --conf-dir} (/etc/cni/net.d), or else the files of {@code
 * --src-conf-dir} (/host/etc/cni/net.d). Other configurations in {@code --conf-dir} are removed
 * first: a runtime uses the first one by name.
 *
 * <p>The plugin is four files (launcher, jar, its AOT cache and VERSION's), plus the launcher under
 * the names of the chained plugins ({@code sart-veth}, {@code sart-router}; optional: an image
 * without them installs {@code sart-cni} alone), and, when {@code --src-bin-dir} has it, the Java
 * runtime the launcher finds next to itself ({@code sart-cni.jre/}: a node has no JDK). Files are
 * copied with their modification times, which the AOT cache checks against the jar, and renamed
 * into place so that a runtime never executes a half-written file. The runtime is a directory,
 * which rename(2) cannot swap for another: it is copied to {@code .sart-cni.jre-<digest>/} and
 * {@code sart-cni.jre} is a symbolic link to it, replaced by a rename (the previous runtime stays
 * until the next install, for a plugin still starting on it). The order is runtime, jar, caches,
 * launcher: a new launcher never starts with an old jar (an old launcher on a new jar works; a
 * cache that does not match its jar is skipped by the JVM).
 */
final class Installer {
  static final List<String> DEFAULT_BINARIES =
      List.of(
          "sart-cni.jar",
          "sart-cni.aot",
          "sart-cni-version.aot",
          "sart-cni",
          "sart-veth",
          "sart-router");
  static final String RUNTIME = "sart-cni.jre";
  static final String CONFLIST = "10-netconf.conflist";

  private Installer() {}

  static int run(String[] args, Map<String, String> env, PrintStream err) {
    Path binDir = Path.of("/opt/cni/bin");
    Path confDir = Path.of("/etc/cni/net.d");
    Path srcBinDir = Path.of("/host/opt/cni/bin");
    Path srcConfDir = Path.of("/host/etc/cni/net.d");
    List<String> binaries = DEFAULT_BINARIES;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        String value;
        int eq = a.indexOf('=');
        if (eq > 0) {
          value = a.substring(eq + 1);
          a = a.substring(0, eq);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException("option " + a + " needs a value");
        }
        switch (a) {
          case "--bin-dir" -> binDir = Path.of(value);
          case "--conf-dir" -> confDir = Path.of(value);
          case "--src-bin-dir" -> srcBinDir = Path.of(value);
          case "--src-conf-dir" -> srcConfDir = Path.of(value);
          case "--binaries" -> binaries = List.of(value.split(","));
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + a
                      + " (options: --bin-dir --conf-dir --src-bin-dir --src-conf-dir --binaries)");
        }
      }
      install(binDir, confDir, srcBinDir, srcConfDir, binaries, env.get("CNI_NETCONF"), err);
      return 0;
    } catch (IllegalArgumentException | IOException e) {
      err.println("cni-installer: " + e.getMessage());
      return 1;
    }
  }

  static void install(
      Path binDir,
      Path confDir,
      Path srcBinDir,
      Path srcConfDir,
      List<String> binaries,
      String netconf,
      PrintStream log)
      throws IOException {
    Files.createDirectories(binDir);
    Path runtime = srcBinDir.resolve(RUNTIME);
    if (Files.isDirectory(runtime, LinkOption.NOFOLLOW_LINKS)) {
      Runtimes.install(runtime, binDir, log);
    } else {
      log.println(
          "cni-installer: no "
              + runtime
              + ": the plugin uses the Java its launcher finds ($SART_CNI_JAVA_HOME, $JAVA_HOME)");
    }
    for (String b : binaries) {
      Path src = srcBinDir.resolve(b);
      if (!Files.isRegularFile(src)) {
        if (b.endsWith(".aot")) {
          log.println(
              "cni-installer: no "
                  + src
                  + ": the plugin will start without its AOT cache (slower)");
          continue;
        }
        if (b.equals(Plugin.SART_VETH) || b.equals(Plugin.SART_ROUTER)) {
          log.println(
              "cni-installer: no " + src + ": the chained plugin " + b + " is not installed");
          continue;
        }
        throw new IOException("no " + src + " to install");
      }
      replace(src, binDir.resolve(b));
      log.println("cni-installer: installed " + binDir.resolve(b));
    }
    Files.createDirectories(confDir);
    List<Path> sources = new ArrayList<>();
    if (netconf == null || netconf.isBlank()) {
      try (DirectoryStream<Path> dir = Files.newDirectoryStream(srcConfDir)) {
        for (Path p : dir) {
          if (Files.isRegularFile(p)) {
            sources.add(p);
          }
        }
      }
      if (sources.isEmpty()) {
        throw new IOException(
            "CNI_NETCONF is not set and " + srcConfDir + " holds no configuration");
      }
    } else {
      try {
        Netconf.parse(netconf.getBytes(StandardCharsets.UTF_8));
      } catch (Netconf.DecodeException e) {
        throw new IllegalArgumentException("CNI_NETCONF: " + e.getMessage());
      }
    }
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(confDir, "*.{conf,conflist,json}")) {
      for (Path p : dir) {
        Files.delete(p);
        log.println("cni-installer: removed " + p);
      }
    }
    if (sources.isEmpty()) {
      Path tmp = confDir.resolve("." + CONFLIST + ".tmp");
      Files.writeString(tmp, netconf);
      Files.move(
          tmp,
          confDir.resolve(CONFLIST),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      log.println("cni-installer: wrote " + confDir.resolve(CONFLIST) + " from CNI_NETCONF");
    } else {
      for (Path p : sources) {
        replace(p, confDir.resolve(p.getFileName()));
        log.println("cni-installer: installed " + confDir.resolve(p.getFileName()));
      }
    }
  }

  private static void replace(Path src, Path target) throws IOException {
    Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
    Files.copy(src, tmp, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
