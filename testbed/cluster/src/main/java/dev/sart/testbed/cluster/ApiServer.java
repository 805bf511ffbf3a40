package dev.sart.testbed.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sart.testbed.Programs;
import dev.sart.testbed.mockapi.MockApiProcess;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The cluster's API server, known only by a kubeconfig: everything in the cluster (the harness, the
 * stand-ins, sartd) talks to it through that kubeconfig like any client. Either fabric8's mock
 * server in CRUD mode started as a process of its own ({@link #startMock}), or any real API server
 * ({@link #external}, e.g. from {@code SART_E2E_KUBECONFIG}).
 */
public final class ApiServer implements AutoCloseable {
  /** Where a real API server's kubeconfig is given to the scenarios and the demo. */
  public static final String KUBECONFIG_ENV = "SART_E2E_KUBECONFIG";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Path kubeconfig;
  private final Process mock;
  private final boolean real;
  private final KubernetesClient client;

  private ApiServer(Path kubeconfig, Process mock) {
    this.kubeconfig = kubeconfig;
    this.mock = mock;
    this.real = mock == null;
    this.client = clientOf(kubeconfig);
  }

  /** {@link #external} when {@code SART_E2E_KUBECONFIG} is set, else {@link #startMock}. */
  public static ApiServer fromEnvironment(Path dir) {
    String k = System.getenv(KUBECONFIG_ENV);
    if (k == null || k.isBlank()) {
      k = System.getProperty("sart.e2e.kubeconfig");
    }
    return k == null || k.isBlank() ? startMock(dir) : external(Path.of(k));
  }

  /** A real API server: the kubeconfig's current context. */
  public static ApiServer external(Path kubeconfig) {
    if (!Files.isReadable(kubeconfig)) {
      throw new IllegalArgumentException("cannot read the kubeconfig " + kubeconfig);
    }
    return new ApiServer(kubeconfig, null);
  }

  /**
   * fabric8's mock server in CRUD mode as a process of its own (this JVM's class path), and a
   * kubeconfig for it in {@code dir}.
   */
  public static ApiServer startMock(Path dir) {
    try {
      Files.createDirectories(dir);
      Path log = dir.resolve("mock-apiserver.log");
      Process p =
          Programs.processBuilder(
                  Launch.java(),
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-Xmx512m",
                  Launch.classpathArgument(),
                  MockApiProcess.class.getName())
              .redirectError(log.toFile())
              .start();
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<MockApiProcess.Announced> first =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return MockApiProcess.Announced.read(out, line -> {});
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      MockApiProcess.Announced announced;
      try {
        announced = first.get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        p.destroyForcibly();
        throw new IllegalStateException("the mock API server did not start: " + tail(log), e);
      }
      Path kubeconfig = dir.resolve("kubeconfig");
      MockKubeconfig.write(kubeconfig, announced.url(), announced.caCertData());
      return new ApiServer(kubeconfig, p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> l = Files.readAllLines(log);
      return String.join("\n", l.subList(Math.max(0, l.size() - 20), l.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  static KubernetesClient clientOf(Path kubeconfig) {
    try {
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      config.setRequestTimeout(30_000);
      return new KubernetesClientBuilder().withConfig(config).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The harness's own client (the one the scenarios and the stand-ins use). */
  public KubernetesClient client() {
    return client;
  }

  /** A new client of its own (for a stand-in that must not share watches, or a second user). */
  public KubernetesClient newClient() {
    return clientOf(kubeconfig);
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  public boolean isReal() {
    return real;
  }

  /** Where the server listens, as seen from the host's namespace. */
  public InetSocketAddress address() {
    URI u = URI.create(client.getConfiguration().getMasterUrl());
    int port = u.getPort() > 0 ? u.getPort() : ("https".equals(u.getScheme()) ? 443 : 80);
    return new InetSocketAddress(u.getHost(), port);
  }

  /**
   * The same kubeconfig for a process in a node namespace, which reaches the server through a
   * {@link HostRelay} on its loopback at the same port: the current cluster's server becomes {@code
   * 127.0.0.1}, and for a server by name its certificate is still checked against that name ({@code
   * tls-server-name}).
   */
  public Path kubeconfigThroughRelay(Path file) {
    try {
      ObjectNode doc = (ObjectNode) YAML.readTree(kubeconfig.toFile());
      String current = doc.path("current-context").asText();
      String clusterName = null;
      for (JsonNode c : doc.path("contexts")) {
        if (c.path("name").asText().equals(current)) {
          clusterName = c.path("context").path("cluster").asText();
        }
      }
      for (JsonNode c : doc.path("clusters")) {
        if (c.path("name").asText().equals(clusterName)) {
          ObjectNode cluster = (ObjectNode) c.get("cluster");
          URI u = URI.create(cluster.get("server").asText());
          String host = u.getHost();
          if (!host.equals("127.0.0.1") && !host.equals("localhost")) {
            if (!cluster.has("tls-server-name") && "https".equals(u.getScheme())) {
              cluster.put("tls-server-name", host);
            }
          }
          cluster.put(
              "server",
              new URI(
                      u.getScheme(),
                      null,
                      "127.0.0.1",
                      address().getPort(),
                      u.getPath(),
                      u.getQuery(),
                      null)
                  .toString());
        }
      }
      YAML.writeValue(file.toFile(), doc);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Applies every CRD manifest of {@code dir} ({@code kubectl apply -k crds/manifests/} as a user
   * would) and waits until the API server serves each one.
   */
  public void applyCrds(Path dir) {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      // the CRDs; deploy/base reaches them through the kustomization.yaml beside them
      files =
          s.filter(p -> p.toString().matches(".*\\.ya?ml"))
              .filter(p -> !p.getFileName().toString().startsWith("kustomization."))
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (files.isEmpty()) {
      throw new IllegalStateException("no CRD manifests in " + dir);
    }
    for (Path f : files) {
      CustomResourceDefinition crd;
      try {
        crd = Serialization.unmarshal(Files.readString(f), CustomResourceDefinition.class);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    }
    for (Path f : files) {
      CustomResourceDefinition crd;
      try {
        crd = Serialization.unmarshal(Files.readString(f), CustomResourceDefinition.class);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      String apiVersion =
          crd.getSpec().getGroup() + "/" + crd.getSpec().getVersions().getFirst().getName();
      String kind = crd.getSpec().getNames().getKind();
      // served = its objects can be listed (a real server says Established a moment before)
      org.awaitility.Awaitility.await("CRD " + crd.getMetadata().getName() + " served")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () -> {
                client.genericKubernetesResources(apiVersion, kind).inAnyNamespace().list();
                return true;
              });
    }
  }

  @Override
  public void close() {
    client.close();
    if (mock != null) {
      try {
        mock.getOutputStream().close();
        if (!mock.waitFor(5, TimeUnit.SECONDS)) {
          mock.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (IOException | InterruptedException e) {
        mock.destroyForcibly();
      }
    }
  }
}
