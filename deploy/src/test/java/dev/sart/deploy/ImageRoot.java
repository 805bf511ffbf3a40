package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The image Jib wrote to {@code target/sart-image.tar} (an OCI layout), unpacked without Docker:
 * its layers in order into a root file system, as a container runtime would.
 */
record ImageRoot(Path root, JsonNode config) {
  private static final Path TAR = Path.of("target", "sart-image.tar");
  private static final ObjectMapper JSON = new ObjectMapper();

  static ImageRoot unpack(Path work) throws IOException {
    assertTrue(Files.isRegularFile(TAR), TAR + " is built at process-classes (mvn package/verify)");
    Path oci = Files.createDirectories(work.resolve("oci"));
    Shell.run("tar", "-xf", TAR.toString(), "-C", oci.toString());
    JsonNode index = JSON.readTree(oci.resolve("index.json").toFile());
    JsonNode manifest = JSON.readTree(blob(oci, index.get("manifests").get(0)).toFile());
    JsonNode config = JSON.readTree(blob(oci, manifest.get("config")).toFile()).get("config");
    Path root = Files.createDirectories(work.resolve("root"));
    for (JsonNode layer : manifest.get("layers")) {
      assertEquals("application/vnd.oci.image.layer.v1.tar+gzip", layer.get("mediaType").asText());
      Shell.run(
          "tar",
          "--warning=no-unknown-keyword",
          "-xzf",
          blob(oci, layer).toString(),
          "-C",
          root.toString());
    }
    Files.createDirectories(root.resolve("proc"));
    return new ImageRoot(root, config);
  }

  private static Path blob(Path oci, JsonNode descriptor) {
    return oci.resolve("blobs/sha256").resolve(descriptor.get("digest").asText().substring(7));
  }
}
