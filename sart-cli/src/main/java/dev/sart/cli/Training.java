package dev.sart.cli;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;

/**
 * The training run for the CLI's JDK 25 AOT cache in the image ({@code -XX:AOTCacheOutput}, JEP
 * 483/514), run at build time by {@code deploy/src/build/aot.sh}; not used at run time. It runs
 * what a user runs with {@code kubectl exec ... -- sart}: the help and version, and the speaker's
 * and the FIB's commands against an endpoint where nothing listens (what a training at build time
 * can reach: the gRPC channel is built, connects, fails, and the error is printed), in plain and
 * JSON output.
 *
 * <p>The JVM loads every class of its cache at each start, so the run stays within those commands:
 * {@code sart --help} pays for the gRPC classes the cache holds (README of {@code deploy}, "AOT
 * cache", has the figures).
 */
final class Training {
  private Training() {}

  /** Nothing listens on port 1 of the loopback address: every RPC fails as UNAVAILABLE. */
  private static final String NOWHERE = "127.0.0.1:1";

  public static void main(String[] args) {
    Sart.setUp();
    PrintWriter out = new PrintWriter(OutputStream.nullOutputStream(), true);
    PrintWriter err = new PrintWriter(OutputStream.nullOutputStream(), true);
    for (List<String> argv :
        List.of(
            List.of("--help"),
            List.of("--version"),
            List.of("bgp", "--help"),
            List.of("-e", NOWHERE, "bgp", "global", "get"),
            List.of("-e", NOWHERE, "-o", "json", "bgp", "neighbor", "list"),
            List.of("-e", NOWHERE, "bgp", "neighbor", "get", "192.0.2.1"),
            List.of("-e", NOWHERE, "fib", "channel", "list"),
            List.of("bgp", "global", "rib", "get", "not-a-prefix"))) {
      Sart.run(argv.toArray(String[]::new), out, err);
    }
  }
}
