package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRD YAML is generated from the Java classes in every build and must equal the checked-in copy
 * under {@code crds/manifests/}: a model change without regenerated YAML fails the build.
 * Regenerate with {@code ./mvnw -B -o -pl crds test -Dtest=CrdYamlTest -Dsart.crds.update=true}.
 */
class CrdYamlTest {
  @TempDir Path generated;

  @Test
  void checkedInCrdsEqualTheGeneratedOnes() throws IOException {
    CrdYaml.generate(generated);
    var produced = names(generated);
    assertEquals(9, produced.size(), "one CRD per kind: " + produced);

    if (Boolean.getBoolean("sart.crds.update")) {
      Files.createDirectories(CrdYaml.CHECKED_IN);
      for (var old : names(CrdYaml.CHECKED_IN)) {
        Files.delete(CrdYaml.CHECKED_IN.resolve(old));
      }
      for (var name : produced) {
        Files.copy(
            generated.resolve(name),
            CrdYaml.CHECKED_IN.resolve(name),
            StandardCopyOption.REPLACE_EXISTING);
      }
    }

    List<String> drift = new ArrayList<>();
    var checkedIn = names(CrdYaml.CHECKED_IN);
    for (var name : produced) {
      if (!checkedIn.contains(name)) {
        drift.add(name + " is not checked in");
      } else if (!Files.readString(generated.resolve(name))
          .equals(Files.readString(CrdYaml.CHECKED_IN.resolve(name)))) {
        drift.add(name + " differs from the generated one");
      }
    }
    for (var name : checkedIn) {
      if (!produced.contains(name)) {
        drift.add(name + " is checked in but no longer generated");
      }
    }
    if (!drift.isEmpty()) {
      fail(
          "crds/manifests/ drifted from the Java model: "
              + drift
              + "; regenerate with ./mvnw -B -o -pl crds test -Dtest=CrdYamlTest -Dsart.crds.update=true");
    }
  }

  @Test
  void everyKindHasItsScopeAndAStatusSubresource() throws IOException {
    CrdYaml.generate(generated);
    for (var name : names(generated)) {
      var yaml = Files.readString(generated.resolve(name));
      assertTrue(yaml.contains("status: {}"), name + " has the status subresource");
      var expectedScope =
          name.startsWith("bgpadvertisements.") || name.startsWith("egresses.")
              ? "scope: \"Namespaced\""
              : "scope: \"Cluster\"";
      assertTrue(yaml.contains(expectedScope), name + " " + expectedScope);
    }
  }

  private static TreeSet<String> names(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return new TreeSet<>();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yml"))
          .collect(TreeSet::new, TreeSet::add, TreeSet::addAll);
    }
  }
}
