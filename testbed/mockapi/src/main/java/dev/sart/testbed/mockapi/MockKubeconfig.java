package dev.sart.testbed.mockapi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig for a process that talks to fabric8's mock API server (any token passes): the {@code
 * --kubeconfig} of sartd and the CLI run against {@link MockApi}'s server or a relay to it.
 */
public final class MockKubeconfig {
  private MockKubeconfig() {}

  /**
   * Writes it to {@code file}: one cluster at {@code server} (a URL), TLS not verified, a token
   * user, namespace {@code default}.
   */
  public static Path write(Path file, String server) throws IOException {
    return Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster:
            server: %s
            insecure-skip-tls-verify: true
        users:
        - name: tester
          user:
            token: test
        contexts:
        - name: mock
          context:
            cluster: mock
            user: tester
            namespace: default
        current-context: mock
        """
            .formatted(server));
  }
}
