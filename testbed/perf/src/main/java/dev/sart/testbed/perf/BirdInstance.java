package dev.sart.testbed.perf;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A BIRD 2 process of the harness (generator or monitor) with a configuration written here, pinned
 * to a CPU when asked, and the per-protocol counters of {@code show protocols all}, which are O(1)
 * for BIRD to answer (no table walk), so polling them does not slow the BGP work.
 *
 * <p>Commands go over one connection to BIRD's control socket, kept open, in the protocol {@code
 * birdc} speaks (BIRD's user's guide, "Remote control"): a command per line; each reply line starts
 * with a 4-digit code and '-' when more follow or ' ' on the last, or with a space when it
 * continues the previous code. Running {@code birdc} instead cost a process (and {@code ip netns
 * exec}) per sample, a few milliseconds of the CPU the generators and the monitor run on.
 */
final class BirdInstance implements AutoCloseable {
  private static final Pattern HEAD = Pattern.compile("^(\\S+)\\s+BGP\\s+\\S+\\s+(\\S+).*$");
  private static final Pattern STATE = Pattern.compile("^\\s+BGP state:\\s+(\\S+)");
  private static final Pattern ROUTES =
      Pattern.compile("^\\s+Routes:\\s+(\\d+) imported,(?: (\\d+) filtered,)? (\\d+) exported");
  private static final Pattern RECEIVED =
      Pattern.compile("^\\s+Import (?:updates|withdraws):\\s+(\\d+)");

  /**
   * One BGP protocol's line in {@code show protocols all}.
   *
   * @param received announcements and withdrawals received ("Import updates" plus "Import
   *     withdraws", column received): it grows when a best path is replaced, which the route count
   *     does not show
   */
  record Protocol(String name, String state, long imported, long exported, long received) {
    boolean established() {
      return state.equals("Established");
    }
  }

  private final Node node;
  private final String name;
  private final ManagedProcess process;
  private SocketChannel control;
  private BufferedReader replies;
  private Writer commands;

  private BirdInstance(Node node, String name, ManagedProcess process) {
    this.node = node;
    this.name = name;
    this.process = process;
  }

  /** Writes {@code config} and starts BIRD; returns once its control socket answers. */
  static BirdInstance start(
      Node node, String name, String config, String cpus, Duration startTimeout) {
    Path conf = node.dir().resolve(name + ".conf");
    try {
      Files.writeString(conf, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> argv = new ArrayList<>();
    if (cpus != null) {
      argv.addAll(List.of("taskset", "-c", cpus));
    }
    argv.addAll(
        List.of(
            "bird",
            "-f",
            "-c",
            conf.toString(),
            "-s",
            socket(node, name).toString(),
            "-P",
            node.dir().resolve(name + ".pid").toString()));
    BirdInstance b = new BirdInstance(node, name, node.spawn(name, argv));
    await(name + " up")
        .atMost(startTimeout)
        .pollInterval(Duration.ofMillis(100))
        .failFast(name + " exited:\n" + b.process.tail(20), () -> !b.process.isAlive())
        .ignoreExceptions()
        .until(() -> b.birdc("show status").contains("Daemon is up and running"));
    return b;
  }

  private static Path socket(Node node, String name) {
    return node.dir().resolve(name + ".ctl");
  }

  Node node() {
    return node;
  }

  ManagedProcess process() {
    return process;
  }

  /** Runs a BIRD CLI command; returns its reply as {@code birdc} prints it. */
  synchronized String birdc(String command) {
    try {
      if (control == null) {
        connect();
      }
      commands.write(command);
      commands.write('\n');
      commands.flush();
      return readReply(replies);
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(
          "BIRD " + name + " control socket, command '" + command + "'", e);
    }
  }

  private void connect() throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.connect(UnixDomainSocketAddress.of(socket(node, name)));
      replies = new BufferedReader(Channels.newReader(ch, StandardCharsets.UTF_8));
      commands = Channels.newWriter(ch, StandardCharsets.UTF_8);
      readReply(replies); // the greeting: 0001 BIRD 2.0.12 ready.
      control = ch;
    } catch (IOException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Reads one reply: up to the line whose code is followed by a space. Returns the lines without
   * their codes, leaving out code 0000 and asynchronous messages ('+'), as {@code birdc} does.
   */
  static String readReply(BufferedReader in) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String line; (line = in.readLine()) != null; ) {
      if (line.startsWith("+")) {
        continue;
      }
      if (line.startsWith(" ")) {
        out.append(line, 1, line.length()).append('\n');
        continue;
      }
      boolean coded =
          line.length() >= 5
              && Character.isDigit(line.charAt(0))
              && Character.isDigit(line.charAt(1))
              && Character.isDigit(line.charAt(2))
              && Character.isDigit(line.charAt(3))
              && (line.charAt(4) == ' ' || line.charAt(4) == '-');
      if (!coded) {
        out.append(line).append('\n');
        continue;
      }
      if (!line.startsWith("0000")) {
        out.append(line, 5, line.length()).append('\n');
      }
      if (line.charAt(4) == ' ') {
        return out.toString();
      }
    }
    throw new IOException("the control socket closed in the middle of a reply: " + out);
  }

  /** Closes the control connection (BIRD itself is ended with its topology). */
  @Override
  public synchronized void close() {
    if (control != null) {
      try {
        control.close();
      } catch (IOException ignored) {
        // closing a Unix socket whose peer is gone: nothing to recover
      }
      control = null;
      replies = null;
      commands = null;
    }
  }

  /**
   * The BGP protocols whose names match {@code pattern} (BIRD's shell pattern, e.g. "g*"), in
   * order.
   */
  Map<String, Protocol> protocols(String pattern) {
    return parseProtocols(birdc("show protocols all \"" + pattern + "\""));
  }

  static Map<String, Protocol> parseProtocols(String out) {
    Map<String, Protocol> result = new LinkedHashMap<>();
    String current = null;
    String state = "?";
    long imported = 0;
    long exported = 0;
    long received = 0;
    for (String line : out.lines().toList()) {
      Matcher h = HEAD.matcher(line);
      if (h.matches()) {
        if (current != null) {
          result.put(current, new Protocol(current, state, imported, exported, received));
        }
        current = h.group(1);
        state = h.group(2);
        imported = 0;
        exported = 0;
        received = 0;
        continue;
      }
      Matcher s = STATE.matcher(line);
      if (s.find()) {
        state = s.group(1);
        continue;
      }
      Matcher r = ROUTES.matcher(line);
      if (r.find()) {
        imported = Long.parseLong(r.group(1));
        exported = Long.parseLong(r.group(3));
        continue;
      }
      Matcher u = RECEIVED.matcher(line);
      if (u.find()) {
        received += Long.parseLong(u.group(1));
      }
    }
    if (current != null) {
      result.put(current, new Protocol(current, state, imported, exported, received));
    }
    return result;
  }

  /** Lines of the log that tell of a hold timer expiring on either side of a session. */
  List<String> holdTimerExpiries() {
    try {
      return Files.readAllLines(process.log()).stream()
          .filter(l -> l.contains("Hold timer expired"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String logTail() {
    return process.tail(30);
  }
}
