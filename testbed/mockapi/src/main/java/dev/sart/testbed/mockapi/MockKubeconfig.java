package dev.sart.testbed.mockapi;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig for a process that talks to fabric8's mock API server (any token passes): the {@code
 * --kubeconfig} of sartd and the CLI run against {@link MockApi}'s server or a relay to it. The
 * server's certificate is its certificate authority ({@code certificate-authority-data}), so the
 * process verifies the server as it would a real cluster's.
 */
public final class MockKubeconfig {
  private MockKubeconfig() {}

  /**
   * Writes it to {@code file}: one cluster at {@code server} (an {@code https://} URL: the mock's
   * own, or a relay's on {@code 127.0.0.1} or {@code localhost}) trusting {@code caCertData}
   * (base64 of a PEM certificate, {@link MockApi#caCertData}), a token user, namespace {@code
   * default}.
   */
  public static Path write(Path file, String server, String caCertData) throws IOException {
    return Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster:
            server: %s
            certificate-authority-data: %s
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
            .formatted(server, caCertData));
  }

  /** The same for the server {@code client} talks to (a client of {@link MockApi}'s server). */
  public static Path write(Path file, Config client) throws IOException {
    return write(file, client.getMasterUrl(), client.getCaCertData());
  }
}
