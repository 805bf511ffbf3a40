package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One convention for the names of test methods across the tree: lowerCamelCase sentences ({@code
 * aDeletedServiceIsWithdrawn}), as the rest of the Java code, never snake_case.
 */
class TestNamesTest {
  private static final Pattern SNAKE =
      Pattern.compile("\\bvoid\\s+([a-z][a-z0-9]*_[A-Za-z0-9_]*)\\s*\\(");

  @Test
  void testMethodsAreCamelCase() throws IOException {
    Path project = project();
    List<String> snake = new ArrayList<>();
    try (Stream<Path> files = Files.walk(project)) {
      files
          .filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/test/"))
          .filter(p -> !p.toString().contains("/target/"))
          .forEach(
              p -> {
                try {
                  Matcher m = SNAKE.matcher(Files.readString(p));
                  while (m.find()) {
                    snake.add(project.relativize(p) + ": " + m.group(1));
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
    assertEquals(List.of(), snake, "name test methods in lowerCamelCase");
  }

  private static Path project() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("bin/lib/packages.sh"))) {
        return d;
      }
    }
    throw new IllegalStateException("not inside the project");
  }
}
