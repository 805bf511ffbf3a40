package dev.sart.testbed;

import static org.awaitility.Awaitility.await;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A real routing daemon running inside a node: started with a generated configuration, queried
 * through its own CLI (which is the oracle of the tests), stopped by PID.
 *
 * <p>Drivers implement the abstract methods; everything else (waiting, lookups) is shared here.
 * Drivers are not thread-safe: one test thread drives a router.
 */
public abstract class Router {
  /** How long daemons get to come up and answer their CLI. */
  protected static final Duration START_TIMEOUT = Duration.ofSeconds(20);

  protected final Node node;
  protected final RouterConfig config;
  private final List<ManagedProcess> processes = new ArrayList<>();

  protected Router(Node node, RouterConfig config) {
    this.node = node;
    this.config = config;
  }

  /** "bird", "frr", "gobgp", "openbgpd", "exabgp". */
  public abstract String kind();

  /** The programs this driver runs, for {@link Prerequisites}. */
  protected abstract List<String> requiredCommands();

  /** Writes the configuration and starts the daemon's processes (through {@link #spawn}). */
  protected abstract void launch() throws IOException;

  /** Whether the daemon is up and its CLI answers. */
  protected abstract boolean ready();

  /** The session state towards a configured neighbour, as the daemon's CLI reports it. */
  public abstract SessionState sessionState(InetAddress neighbor);

  /**
   * The routes of a family the daemon learned over BGP (best and others), as its CLI shows them.
   */
  public abstract List<Route> routes(Family family);

  /** Starts originating a prefix. */
  public abstract void announce(IpPrefix prefix);

  /** Stops originating a prefix. */
  public abstract void withdraw(IpPrefix prefix);

  /** Checks prerequisites, launches the daemon and waits until its CLI answers. */
  public final Router start() {
    Prerequisites.requireCommands(requiredCommands().toArray(String[]::new));
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + this, e);
    }
    await("%s ready".formatted(this))
        .atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(50))
        .failFast(
            "%s exited:%n%s".formatted(this, logTail()),
            () -> processes.stream().anyMatch(p -> !p.isAlive()))
        .ignoreExceptions()
        .until(this::ready);
    return this;
  }

  /** Stops the daemon's processes by PID, last started first; {@link #start} starts it again. */
  public void stop() {
    for (ManagedProcess p : processes.reversed()) {
      p.stop();
    }
    processes.clear();
  }

  public final Node node() {
    return node;
  }

  public final RouterConfig config() {
    return config;
  }

  /** The processes this router started (their PIDs are what {@link #stop()} ends). */
  public final List<ManagedProcess> processes() {
    return List.copyOf(processes);
  }

  /** Whether every process of the router is still running. */
  public final boolean isRunning() {
    return !processes.isEmpty() && processes.stream().allMatch(ManagedProcess::isAlive);
  }

  // --- conveniences shared by all drivers -------------------------------------------------------

  public final SessionState sessionState(String neighbor) {
    return sessionState(Ip.parse(neighbor));
  }

  /** Waits until the session towards {@code neighbor} is Established. */
  public final Router awaitEstablished(String neighbor) {
    return awaitSessionState(neighbor, SessionState.ESTABLISHED, Duration.ofSeconds(30));
  }

  public final Router awaitSessionState(String neighbor, SessionState state, Duration timeout) {
    InetAddress n = Ip.parse(neighbor);
    await("%s: session to %s %s".formatted(this, neighbor, state))
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(100))
        .failFast("%s stopped:%n%s".formatted(this, logTail()), () -> !isRunning())
        .until(() -> sessionState(n) == state);
    return this;
  }

  /** The routes for exactly this prefix. */
  public final List<Route> routes(IpPrefix prefix) {
    return routes(Family.of(prefix)).stream().filter(r -> r.prefix().equals(prefix)).toList();
  }

  /** The best route for this prefix, if the router has one. */
  public final Optional<Route> bestRoute(String prefix) {
    return routes(IpPrefix.parse(prefix)).stream()
        .filter(Route::best)
        .findFirst()
        .or(() -> routes(IpPrefix.parse(prefix)).stream().findFirst());
  }

  /** Waits until the router has a route for {@code prefix} and returns the best one. */
  public final Route awaitRoute(String prefix) {
    IpPrefix p = IpPrefix.parse(prefix);
    return await("%s: route %s".formatted(this, prefix))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> bestRoute(p.toString()), Optional::isPresent)
        .orElseThrow();
  }

  /** Waits until the router has no route for {@code prefix}. */
  public final void awaitNoRoute(String prefix) {
    IpPrefix p = IpPrefix.parse(prefix);
    await("%s: no route %s".formatted(this, prefix))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> routes(p).isEmpty());
  }

  public final void announce(String prefix) {
    announce(IpPrefix.parse(prefix));
  }

  public final void withdraw(String prefix) {
    withdraw(IpPrefix.parse(prefix));
  }

  /** Whether a log of the running daemon's processes has {@code text} in it. */
  public final boolean logged(String text) {
    for (ManagedProcess p : processes) {
      try {
        if (java.nio.file.Files.readString(p.log()).contains(text)) {
          return true;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return false;
  }

  /** The last lines of every log of this router, for failure messages. */
  public final String logTail() {
    StringBuilder sb = new StringBuilder();
    for (ManagedProcess p : processes) {
      sb.append("--- ").append(p.log()).append('\n').append(p.tail(40)).append('\n');
    }
    return sb.toString();
  }

  // --- for drivers ------------------------------------------------------------------------------

  /**
   * Starts one of the router's processes inside its node; the topology ends it at the latest on
   * close.
   */
  protected final ManagedProcess spawn(String name, List<String> argv) {
    return spawn(name, argv, java.util.Map.of());
  }

  protected final ManagedProcess spawn(
      String name, List<String> argv, java.util.Map<String, String> env) {
    ManagedProcess p = node.spawn(name, argv, env);
    processes.add(p);
    return p;
  }

  /** Writes a file into the node's directory and returns its path. */
  protected final Path writeFile(String name, String content) throws IOException {
    Path p = node.dir().resolve(name);
    Files.writeString(p, content, StandardCharsets.UTF_8);
    return p;
  }

  /** Runs one of the router's CLIs inside the node and returns stdout; throws when it fails. */
  protected final String cli(String... argv) {
    return node.exec(argv);
  }

  @Override
  public String toString() {
    return kind() + "@" + node.name();
  }
}
