package dev.sart.cni;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * One CNI invocation (CNI spec §"Protocol"): the command and its parameters in {@code CNI_*}
 * environment variables, the network configuration on stdin, the result or error on stdout and the
 * exit code. VERSION is answered here; every other command goes, unparsed, to the agent over its
 * UNIX socket (see {@link Frame}), and its answer is printed as it comes.
 */
public final class Plugin {
  /** CNI spec versions this plugin (with its agent) speaks. */
  public static final String[] SUPPORTED_VERSIONS = {"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"};

  /**
   * CNI spec versions of the chained plugins {@code sart-veth} and {@code sart-router}: they need
   * {@code prevResult} and CHECK, which the spec has from 0.4.0.
   */
  public static final String[] CHAINED_VERSIONS = {"0.4.0", "1.0.0", "1.1.0"};

  /** The main plugin: the pod's interface, its address, its routes. */
  public static final String SART_CNI = "sart-cni";

  /** Chained after a main plugin such as macvlan: a veth to the node (issue 27). */
  public static final String SART_VETH = "sart-veth";

  /** Chained after a pod's secondary interface: east-west over eth0, north-south over it. */
  public static final String SART_ROUTER = "sart-router";

  /** The agent's socket when the configuration names none (sart's default). */
  public static final String DEFAULT_ENDPOINT = "/var/run/sart.sock";

  static final double DEFAULT_TIMEOUT_SECONDS = 60;

  private final String name;
  private final String[] versions;
  private final Map<String, String> env;
  private final byte[] stdin;
  private final OutputStream stdout;

  /** {@code sart-cni}. */
  public Plugin(Map<String, String> env, byte[] stdin, OutputStream stdout) {
    this(SART_CNI, env, stdin, stdout);
  }

  /**
   * The plugin {@code name}: {@link #SART_VETH} or {@link #SART_ROUTER} (chained), anything else is
   * {@code sart-cni}.
   */
  public Plugin(String name, Map<String, String> env, byte[] stdin, OutputStream stdout) {
    this.name = chained(name) ? name : SART_CNI;
    this.versions = chained(name) ? CHAINED_VERSIONS : SUPPORTED_VERSIONS;
    this.env = env;
    this.stdin = stdin;
    this.stdout = stdout;
  }

  /** Whether {@code name} is one of the chained plugins. */
  public static boolean chained(String name) {
    return SART_VETH.equals(name) || SART_ROUTER.equals(name);
  }

  /** Runs the command and returns the exit code; the output is written to stdout. */
  public int run() throws IOException {
    String command = env.getOrDefault("CNI_COMMAND", "");
    Netconf conf;
    try {
      conf = stdin.length == 0 && command.equals("VERSION") ? Netconf.EMPTY : Netconf.parse(stdin);
    } catch (Netconf.DecodeException e) {
      return fail(
          null,
          new CniError(
              CniError.DECODE, "failed to decode the network configuration", e.getMessage()));
    }
    String version = conf.cniVersion();
    switch (command) {
      case "VERSION" -> {
        return version(version);
      }
      case "ADD", "DEL", "CHECK", "STATUS", "GC" -> {
        return forward(command, conf);
      }
      case "" -> {
        return fail(
            version, new CniError(CniError.INVALID_ENVIRONMENT, "CNI_COMMAND is not set", ""));
      }
      default -> {
        return fail(
            version,
            new CniError(
                CniError.INVALID_ENVIRONMENT,
                "unknown CNI_COMMAND " + command,
                name + " understands ADD, DEL, CHECK, STATUS, GC and VERSION"));
      }
    }
  }

  /** CNI spec §"VERSION": the versions supported, in the version the configuration asked for. */
  private int version(String requested) throws IOException {
    String v =
        requested != null && contains(versions, requested)
            ? requested
            : versions[versions.length - 1];
    StringBuilder sb =
        new StringBuilder("{\"cniVersion\":\"").append(v).append("\",\"supportedVersions\":[");
    for (int i = 0; i < versions.length; i++) {
      sb.append(i == 0 ? "\"" : ",\"").append(versions[i]).append('"');
    }
    stdout.write(sb.append("]}\n").toString().getBytes(Frame.UTF_8));
    stdout.flush();
    return 0;
  }

  static boolean supported(String version) {
    return contains(SUPPORTED_VERSIONS, version);
  }

  private static boolean contains(String[] versions, String version) {
    for (String s : versions) {
      if (s.equals(version)) {
        return true;
      }
    }
    return false;
  }

  private int forward(String command, Netconf conf) throws IOException {
    java.net.SocketAddress socket;
    try {
      socket = endpoint(conf.endpoint());
    } catch (IllegalArgumentException e) {
      return fail(
          conf.cniVersion(),
          new CniError(CniError.INVALID_NETWORK_CONFIG, "invalid endpoint", e.getMessage()));
    }
    double timeout = conf.timeoutSeconds() > 0 ? conf.timeoutSeconds() : DEFAULT_TIMEOUT_SECONDS;
    // in name order (cniVariables sorts), as the frame always had them
    Map<String, String> cni = new LinkedHashMap<>();
    for (String v : Frame.cniVariables(env)) {
      cni.put(v, env.get(v));
    }
    if (!name.equals(SART_CNI)) {
      // sart-cni's frames stay as they were; the agent reads a frame without it as sart-cni's
      cni.put(Frame.PLUGIN, name);
    }
    byte[] request = Frame.encodeRequest(cni, stdin);
    Frame.Response response;
    SocketChannel channel;
    try {
      channel =
          socket instanceof UnixDomainSocketAddress ? UnixSockets.open() : SocketChannel.open();
    } catch (IOException e) {
      return fail(
          conf.cniVersion(),
          new CniError(CniError.IO_FAILURE, "cannot open a socket", e.toString()));
    }
    long deadline = System.nanoTime() + (long) (timeout * 1e9);
    Thread watchdog = new Watchdog(deadline, channel);
    watchdog.setDaemon(true);
    try {
      try {
        channel.connect(socket);
      } catch (IOException | java.nio.channels.UnresolvedAddressException e) {
        int code = command.equals("STATUS") ? CniError.NOT_AVAILABLE : CniError.TRY_AGAIN_LATER;
        return fail(
            conf.cniVersion(),
            new CniError(
                code,
                "the sart agent is not reachable at " + where(socket),
                (socket instanceof UnixDomainSocketAddress u && !Files.exists(u.getPath())
                        ? "no such socket; "
                        : "")
                    + e.getMessage()));
      }
      // What the socket takes at once is written before the watchdog's thread is started: the
      // agent works on the request while this JVM creates the thread (~1 ms). Non-blocking, so
      // that a request the agent does not read cannot block here with no watchdog; the rest, if
      // any, is written under it.
      ByteBuffer out = ByteBuffer.wrap(request);
      channel.configureBlocking(false);
      channel.write(out);
      channel.configureBlocking(true);
      watchdog.start();
      while (out.hasRemaining()) {
        channel.write(out);
      }
      // no shutdownOutput: the agent reads the frame by its lengths, and the JDK's shutdown goes
      // through sun.nio.ch.Net, whose initialisation (IPv6 probes) cost ~1.7 ms here
      response = Frame.decodeResponse(new ByteArrayInputStream(readAll(channel)));
    } catch (AsynchronousCloseException e) {
      return fail(
          conf.cniVersion(),
          new CniError(
              CniError.TIMEOUT,
              "the sart agent did not answer in time",
              command + " took longer than " + timeout + " s (netconf \"timeout\")"));
    } catch (IOException e) {
      int code = command.equals("STATUS") ? CniError.NOT_AVAILABLE : CniError.TRY_AGAIN_LATER;
      return fail(
          conf.cniVersion(),
          new CniError(code, "the connection to the sart agent failed", e.toString()));
    } finally {
      watchdog.interrupt();
      UnixSockets.close(channel);
    }
    stdout.write(response.stdout());
    stdout.flush();
    return response.exitCode();
  }

  /**
   * Closes the channel at the deadline unless interrupted first. A named Thread subclass: not a
   * lambda (its metafactory's method-handle classes), not Thread.ofPlatform() (the builder's
   * classes, the unnamed threads' counter), which the AOT cache would load at every start,
   * VERSION's too; parkNanos, not Thread.sleep, which loads a JFR event class the cache cannot
   * hold.
   */
  private static final class Watchdog extends Thread {
    private final long deadline;
    private final SocketChannel channel;

    Watchdog(long deadline, SocketChannel channel) {
      super("sart-cni-timeout");
      this.deadline = deadline;
      this.channel = channel;
    }

    @Override
    public void run() {
      for (long left; (left = deadline - System.nanoTime()) > 0; ) {
        if (Thread.interrupted()) {
          return;
        }
        LockSupport.parkNanos(left);
      }
      try {
        channel.close();
      } catch (IOException e) {
        // the call fails with AsynchronousCloseException all the same
      }
    }
  }

  private static byte[] readAll(SocketChannel channel) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(8192);
    while (channel.read(buf) >= 0) {
      if (!buf.hasRemaining()) {
        ByteBuffer bigger = ByteBuffer.allocate(buf.capacity() * 2);
        buf.flip();
        bigger.put(buf);
        buf = bigger;
      }
    }
    byte[] b = new byte[buf.position()];
    buf.flip().get(b);
    return b;
  }

  /**
   * Where the configuration's {@code endpoint} points: the agent's UNIX socket ({@code /PATH} or
   * {@code unix:///PATH}), or its TCP endpoint as sart's netconf names it ({@code
   * http://HOST:PORT}, sart's {@code "http://localhost:6000"}; also {@code tcp://HOST:PORT}), where
   * the agent takes this plugin's frames besides sart's gRPC.
   */
  static java.net.SocketAddress endpoint(String endpoint) {
    if (endpoint == null || endpoint.isEmpty()) {
      return UnixDomainSocketAddress.of(DEFAULT_ENDPOINT);
    }
    for (String scheme : new String[] {"http://", "tcp://"}) {
      if (endpoint.startsWith(scheme)) {
        return tcp(endpoint, endpoint.substring(scheme.length()));
      }
    }
    String path =
        endpoint.startsWith("unix://") ? endpoint.substring("unix://".length()) : endpoint;
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException(
          "\"endpoint\" must be the agent's UNIX socket (/var/run/sart.sock, unix:///PATH) or its"
              + " TCP endpoint (http://localhost:6000), not "
              + endpoint);
    }
    return UnixDomainSocketAddress.of(Path.of(path));
  }

  private static java.net.InetSocketAddress tcp(String endpoint, String hostPort) {
    if (hostPort.endsWith("/")) {
      hostPort = hostPort.substring(0, hostPort.length() - 1);
    }
    int colon = hostPort.lastIndexOf(':');
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (RuntimeException e) {
      port = -1;
    }
    String host = colon <= 0 ? "" : hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isEmpty() || port < 1 || port > 65535 || host.contains("/")) {
      throw new IllegalArgumentException(
          "\"endpoint\" " + endpoint + " has no host:port (http://localhost:6000)");
    }
    // looked up here (localhost: /etc/hosts); a name that does not resolve fails at connect, as an
    // agent that is not reachable
    return new java.net.InetSocketAddress(host, port);
  }

  private static String where(java.net.SocketAddress a) {
    return a instanceof UnixDomainSocketAddress u
        ? u.getPath().toString()
        : a instanceof java.net.InetSocketAddress i
            ? i.getHostString() + ":" + i.getPort()
            : "" + a;
  }

  private int fail(String cniVersion, CniError error) throws IOException {
    String v =
        cniVersion != null && !cniVersion.isEmpty()
            ? cniVersion
            : SUPPORTED_VERSIONS[SUPPORTED_VERSIONS.length - 1];
    stdout.write(error.toJson(v));
    stdout.flush();
    return 1;
  }
}
