package dev.sart.fib.daemon;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Rtnl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code sartd fib -f FILE} YAML (sart.md §5): the manager's endpoint and the channels, each
 * moving routes from its subscribers (sources) to its publishers (sinks). sart's keys are kept;
 * {@code route_protocol}, a subscriber's {@code mode} and an absent {@code ip_version} (both
 * families) are additions.
 *
 * <pre>
 * endpoint: 127.0.0.1:5001
 * route_protocol: 186
 * channels:
 *   - name: bgp-to-kernel
 *     ip_version: ipv4
 *     subscribers: [{protocol: bgp, endpoint: 127.0.0.1:5000}]
 *     publishers: [{protocol: kernel, tables: [254]}]
 * </pre>
 */
public record FibConfig(String endpoint, int routeProtocol, List<ChannelConfig> channels) {

  /** sart's own protocol number for the routes it installs (RTPROT_BGP in rtnetlink.h). */
  public static final int DEFAULT_ROUTE_PROTOCOL = Rtnl.RTPROT_BGP;

  public FibConfig {
    channels = List.copyOf(channels);
  }

  /** Where a channel takes routes from or puts them. */
  public enum Protocol {
    bgp,
    kernel
  }

  /**
   * How a {@code bgp} subscriber gets the speaker's routes: {@code watch} follows the speaker's
   * {@code BgpApi.WatchPath} at {@code endpoint} (the default); {@code push} serves sart's {@code
   * FibApi} at {@code endpoint} for a speaker that pushes ({@code sartd bgp --fib}).
   */
  public enum Mode {
    watch,
    push
  }

  /** One subscriber or publisher: a speaker's endpoint, or kernel tables. */
  public record Endpoint(Protocol protocol, String endpoint, List<Integer> tables, Mode mode) {
    public Endpoint {
      tables = tables == null ? List.of() : List.copyOf(tables);
    }

    /** How the API shows it: "bgp 127.0.0.1:5000", "kernel 254,100". */
    public String describe() {
      return protocol == Protocol.bgp
          ? "bgp " + endpoint + (mode == Mode.push ? " (push)" : "")
          : "kernel " + String.join(",", tables.stream().map(Integer::toUnsignedString).toList());
    }
  }

  public record ChannelConfig(
      String name, Set<Family> families, List<Endpoint> subscribers, List<Endpoint> publishers) {
    public ChannelConfig {
      families = Set.copyOf(families);
      subscribers = List.copyOf(subscribers);
      publishers = List.copyOf(publishers);
    }
  }

  // --- the file as written ----------------------------------------------------------------------

  public record File(
      String endpoint,
      @JsonProperty("route_protocol") Integer routeProtocol,
      List<Channel> channels) {}

  public record Channel(
      String name,
      @JsonProperty("ip_version") String ipVersion,
      List<Proto> subscribers,
      List<Proto> publishers) {}

  public record Proto(String protocol, String endpoint, List<Long> tables, String mode) {}

  /**
   * Reads and checks {@code file}; every mistake is an {@link IllegalArgumentException} naming the
   * file and the key.
   */
  public static FibConfig load(Path file) {
    ObjectMapper yaml =
        new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    File f;
    try {
      if (Files.size(file) == 0) {
        throw new IllegalArgumentException(file + ": the file is empty (it needs 'channels')");
      }
      f = yaml.readValue(file.toFile(), File.class);
    } catch (UnrecognizedPropertyException e) {
      throw new IllegalArgumentException(
          file
              + ": "
              + path(e)
              + "unknown key '"
              + e.getPropertyName()
              + "' (known: "
              + e.getKnownPropertyIds()
              + ")");
    } catch (InvalidFormatException e) {
      throw new IllegalArgumentException(
          file
              + ": "
              + path(e)
              + "'"
              + e.getValue()
              + "' is not a "
              + e.getTargetType().getSimpleName().toLowerCase(Locale.ROOT));
    } catch (MismatchedInputException e) {
      throw new IllegalArgumentException(
          file + ": " + path(e) + e.getOriginalMessage().split("\n")[0]);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage().split("\n")[0], e);
    }
    if (f == null) {
      throw new IllegalArgumentException(file + ": the file is empty (it needs 'channels')");
    }
    try {
      return of(f);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  private static String path(MismatchedInputException e) {
    StringBuilder sb = new StringBuilder();
    for (var ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        sb.append(sb.isEmpty() ? "" : ".").append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      }
    }
    return sb.isEmpty() ? "" : sb + ": ";
  }

  public static FibConfig of(File f) {
    int protocol = f.routeProtocol() == null ? DEFAULT_ROUTE_PROTOCOL : f.routeProtocol();
    // 0..4 belong to the kernel (unspec, redirect, kernel, boot, static): reconciliation would
    // remove others' routes
    if (protocol <= Rtnl.RTPROT_STATIC || protocol > 255) {
      throw new IllegalArgumentException(
          "route_protocol " + protocol + " must be 5..255 (0..4 are the kernel's)");
    }
    if (f.channels() == null || f.channels().isEmpty()) {
      throw new IllegalArgumentException("no 'channels': nothing to do");
    }
    Set<String> names = new HashSet<>();
    List<ChannelConfig> channels = new ArrayList<>();
    for (int i = 0; i < f.channels().size(); i++) {
      Channel c = f.channels().get(i);
      String where = "channels[" + i + "]";
      if (c == null || c.name() == null || c.name().isBlank()) {
        throw new IllegalArgumentException(where + ": a channel needs a 'name'");
      }
      if (!names.add(c.name())) {
        throw new IllegalArgumentException(
            where + ".name: '" + c.name() + "' is the name of another channel too");
      }
      Set<Family> families = families(where + ".ip_version", c.ipVersion());
      List<Endpoint> subs = endpoints(where + ".subscribers", c.subscribers(), true);
      List<Endpoint> pubs = endpoints(where + ".publishers", c.publishers(), false);
      channels.add(new ChannelConfig(c.name(), families, subs, pubs));
    }
    // two channels writing the same table would remove each other's routes when reconciling
    Set<Long> written = new HashSet<>();
    for (int i = 0; i < channels.size(); i++) {
      ChannelConfig c = channels.get(i);
      for (Endpoint p : c.publishers()) {
        for (int t : p.tables()) {
          for (Family fam : c.families()) {
            if (!written.add(((long) fam.ordinal() << 32) | Integer.toUnsignedLong(t))) {
              throw new IllegalArgumentException(
                  "channels["
                      + i
                      + "].publishers: table "
                      + Integer.toUnsignedString(t)
                      + " ("
                      + name(fam)
                      + ") is published to by another channel too");
            }
          }
        }
      }
    }
    return new FibConfig(
        f.endpoint() == null ? "127.0.0.1:5001" : hostPort("endpoint", f.endpoint()),
        protocol,
        channels);
  }

  private static Set<Family> families(String where, String ipVersion) {
    if (ipVersion == null) {
      return EnumSet.allOf(Family.class);
    }
    return switch (ipVersion.toLowerCase(Locale.ROOT)) {
      case "ipv4", "v4", "4" -> EnumSet.of(Family.INET);
      case "ipv6", "v6", "6" -> EnumSet.of(Family.INET6);
      case "both", "dual" -> EnumSet.allOf(Family.class);
      default ->
          throw new IllegalArgumentException(
              where + ": '" + ipVersion + "' is not ipv4, ipv6 or both");
    };
  }

  static String name(Family f) {
    return f == Family.INET ? "ipv4" : "ipv6";
  }

  private static List<Endpoint> endpoints(String where, List<Proto> list, boolean subscriber) {
    if (list == null || list.isEmpty()) {
      throw new IllegalArgumentException(where + ": none given (at least one is needed)");
    }
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Proto p = list.get(i);
      String w = where + "[" + i + "]";
      if (p == null || p.protocol() == null) {
        throw new IllegalArgumentException(w + ": 'protocol' is missing (bgp or kernel)");
      }
      switch (p.protocol().toLowerCase(Locale.ROOT)) {
        case "bgp" -> {
          if (p.tables() != null && !p.tables().isEmpty()) {
            throw new IllegalArgumentException(w + ": 'tables' is for protocol kernel, not bgp");
          }
          if (p.endpoint() == null) {
            throw new IllegalArgumentException(
                w + ": protocol bgp needs an 'endpoint' (host:port of the speaker's API)");
          }
          Mode mode = Mode.watch;
          if (p.mode() != null) {
            if (!subscriber) {
              throw new IllegalArgumentException(w + ": 'mode' is for subscribers only");
            }
            mode =
                switch (p.mode().toLowerCase(Locale.ROOT)) {
                  case "watch" -> Mode.watch;
                  case "push" -> Mode.push;
                  default ->
                      throw new IllegalArgumentException(
                          w + ": mode '" + p.mode() + "' is not watch or push");
                };
          }
          out.add(
              new Endpoint(Protocol.bgp, hostPort(w + ".endpoint", p.endpoint()), List.of(), mode));
        }
        case "kernel" -> {
          if (p.endpoint() != null || p.mode() != null) {
            throw new IllegalArgumentException(
                w + ": protocol kernel takes 'tables', not 'endpoint' or 'mode'");
          }
          if (p.tables() == null || p.tables().isEmpty()) {
            throw new IllegalArgumentException(w + ": protocol kernel needs 'tables' (e.g. [254])");
          }
          List<Integer> tables = new ArrayList<>();
          for (long t : p.tables()) {
            if (t <= 0 || t > 0xffff_ffffL || t == Rtnl.RT_TABLE_LOCAL) {
              throw new IllegalArgumentException(
                  w + ": table " + t + " is not 1..4294967295 (and not 255, the local table)");
            }
            if (tables.contains((int) t)) {
              throw new IllegalArgumentException(w + ": table " + t + " is listed twice");
            }
            tables.add((int) t);
          }
          out.add(new Endpoint(Protocol.kernel, null, tables, null));
        }
        default ->
            throw new IllegalArgumentException(
                w + ": protocol '" + p.protocol() + "' is not bgp or kernel");
      }
    }
    return out;
  }

  /** Checks "host:port" ("[::1]:5000" for IPv6) and returns it. */
  public static String hostPort(String where, String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException(where + ": '" + text + "' is not host:port");
    }
    try {
      int port = Integer.parseInt(text.substring(colon + 1));
      if (port < 0 || port > 65535) { // 0: any free port (tests)
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(where + ": '" + text + "': the port is not 0..65535");
    }
    return text;
  }
}
