package dev.sart.crds;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The generated CRD YAML of the nine kinds, as shipped in this jar (for installing them, and for
 * tests).
 */
public final class CrdManifests {
  private CrdManifests() {}

  public static final List<String> PLURALS =
      List.of(
          "addresspools",
          "addressblocks",
          "blockrequests",
          "clusterbgps",
          "nodebgps",
          "bgppeers",
          "bgppeertemplates",
          "bgpadvertisements",
          "egresses");

  /** One YAML document per kind. */
  public static List<String> yaml() {
    var result = new ArrayList<String>();
    for (var plural : PLURALS) {
      var path = "/crds/" + plural + "." + Sart.GROUP + "-v1.yml";
      try (InputStream in = CrdManifests.class.getResourceAsStream(path)) {
        if (in == null) {
          throw new IllegalStateException(path + " is missing from the sart-crds jar");
        }
        result.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return result;
  }
}
