package dev.sart.proto;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The API endpoints that this JVM serves to its own parts over grpc-java's in-process transport
 * (DESIGN.md §3: co-located components talk in process, separate ones over TCP or UNIX sockets).
 *
 * <p>{@code sartd node} runs the speaker, the FIB and the agent in one JVM; the FIB follows the
 * speaker's best paths ({@code WatchPath}) and the agent drives it, both through the speaker's gRPC
 * API. Over loopback TCP every message was encoded, framed in HTTP/2 and decoded again on Netty's
 * threads; in process a message object is handed over as it is (grpc-java's protobuf marshaller
 * returns the same object to the other side), with the same services, status codes, deadlines and
 * flow control. The endpoint keeps its TCP listener for everything outside the JVM (the {@code
 * sart} CLI, a separate {@code sartd fib}).
 *
 * <p>The choice is made once, before the parts start: {@link #share} marks an endpoint, the server
 * of that endpoint then also serves in process ({@link #serveInProcess}) and every client of it in
 * this JVM gets an in-process channel ({@link #channel}) — even one made before the server is up,
 * which then retries as a TCP client would on a refused connection. Unmarked endpoints are plain
 * TCP.
 */
public final class LocalEndpoints {
  private static final Set<String> SHARED = ConcurrentHashMap.newKeySet();

  private LocalEndpoints() {}

  /**
   * From now on, {@code endpoint} ("host:port", as its server and clients are given it) is served
   * in process too.
   */
  public static void share(String endpoint) {
    SHARED.add(endpoint);
  }

  /** {@code endpoint} is no longer served in process to clients made from now on. */
  public static void unshare(String endpoint) {
    SHARED.remove(endpoint);
  }

  /** The in-process name of a shared endpoint. */
  static Optional<String> name(String endpoint) {
    return SHARED.contains(endpoint) ? Optional.of("sart-api:" + endpoint) : Optional.empty();
  }

  /**
   * For the server of {@code endpoint}: when it is shared, a started in-process server with {@code
   * services} on {@code executor} (the caller shuts it down with its TCP server); else empty.
   */
  public static Optional<Server> serveInProcess(
      String endpoint, List<BindableService> services, Executor executor) throws IOException {
    Optional<String> name = name(endpoint);
    if (name.isEmpty()) {
      return Optional.empty();
    }
    InProcessServerBuilder b = InProcessServerBuilder.forName(name.get()).executor(executor);
    services.forEach(b::addService);
    return Optional.of(b.build().start());
  }

  /** A channel to {@code endpoint}: in process when it is shared, else {@code otherwise}'s. */
  public static ManagedChannel channel(String endpoint, Supplier<ManagedChannel> otherwise) {
    return name(endpoint)
        .<ManagedChannel>map(n -> InProcessChannelBuilder.forName(n).build())
        .orElseGet(otherwise);
  }
}
