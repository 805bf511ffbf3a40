package dev.sart.cni;

import java.io.IOException;
import java.util.Arrays;

/** {@code sart-cni}: the CNI plugin, or {@code sart-cni cni-installer ...}. */
public final class SartCni {
  private SartCni() {}

  public static void main(String[] args) throws IOException {
    if (args.length > 0 && args[0].equals("cni-installer")) {
      System.exit(Installer.run(Arrays.copyOfRange(args, 1, args.length), System.getenv(), System.err));
    }
    byte[] stdin = System.in.readAllBytes();
    int code = new Plugin(System.getenv(), stdin, System.out).run();
    System.out.flush();
    System.exit(code);
  }
}
