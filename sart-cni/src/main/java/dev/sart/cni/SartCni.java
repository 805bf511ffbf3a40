package dev.sart.cni;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;

/**
 * {@code sart-cni}: the CNI plugin, or {@code sart-cni cni-installer ...}. The same jar is {@code
 * sart-veth} and {@code sart-router}: the launcher passes the name it was executed under as the
 * system property {@value #PLUGIN_PROPERTY}.
 */
public final class SartCni {
  static final String PLUGIN_PROPERTY = "sart.cni.plugin";

  private SartCni() {}

  public static void main(String[] args) throws IOException {
    int code =
        run(
            System.getProperty(PLUGIN_PROPERTY, Plugin.SART_CNI),
            args,
            System.getenv(),
            System.in,
            System.out,
            System.err);
    // halt, not exit: System.exit logs the exit through System.Logger (JDK 17+), which starts
    // java.util.logging — measurable on every pod's start. There are no shutdown hooks to run.
    Runtime.getRuntime().halt(code);
  }

  /** One invocation of {@code sart-cni}; returns the exit code after flushing stdout. */
  static int run(
      String[] args, Map<String, String> env, InputStream in, PrintStream out, PrintStream err)
      throws IOException {
    return run(Plugin.SART_CNI, args, env, in, out, err);
  }

  /** One invocation of the plugin {@code name}; returns the exit code after flushing stdout. */
  static int run(
      String name,
      String[] args,
      Map<String, String> env,
      InputStream in,
      PrintStream out,
      PrintStream err)
      throws IOException {
    if (args.length > 0 && args[0].equals("cni-installer")) {
      return Installer.run(Arrays.copyOfRange(args, 1, args.length), env, err);
    }
    int code = new Plugin(name, env, in.readAllBytes(), out).run();
    out.flush();
    return code;
  }
}
