package dev.sart.testbed.cluster;

import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A namespace's kernel route changes as they happen: {@code ip -ts monitor route} (rtnetlink's
 * RTNLGRP_IPV4_ROUTE/IPV6_ROUTE multicast groups), each line stamped with the time this process
 * read it. On a ToR this is the moment zebra installed (or removed) a BGP route in the kernel: no
 * polling interval. {@link #lagNanos} is the observation's own latency (the time {@code ip} stamped
 * the message to the time it was read here).
 */
public final class RouteWatch implements AutoCloseable {
  /**
   * One route message.
   *
   * @param deleted an RTM_DELROUTE ({@code Deleted ...})
   * @param prefix the destination as printed ({@code 198.51.100.5} for a /32)
   * @param readNanos {@link System#nanoTime()} when read
   * @param lagNanos {@code ip}'s timestamp to the read, or -1 when the line had none
   * @param via the route's gateways (each {@code via} of a route with one next hop or several);
   *     empty from {@link #openWire}
   */
  public record Event(
      boolean deleted, String prefix, long readNanos, long lagNanos, List<String> via) {
    Event(boolean deleted, String prefix, long readNanos, long lagNanos) {
      this(deleted, prefix, readNanos, lagNanos, List.of());
    }
  }

  private final Process process;
  private final List<Event> events = new ArrayList<>();
  private final List<Long> lags = new ArrayList<>();
  private final Thread reader;

  private RouteWatch(Process process, String name, boolean wire) {
    this.process = process;
    this.reader =
        Thread.ofPlatform()
            .daemon()
            .name((wire ? "bgp-watch-" : "route-watch-") + name)
            .start(wire ? this::readWire : this::read);
  }

  /**
   * Starts watching {@code ns} ({@code -o}: a route with several next hops is one line, each {@code
   * nexthop via ...} in it); returns once {@code ip monitor} runs.
   */
  public static RouteWatch open(Node ns) {
    try {
      Process p =
          Programs.processBuilder(ns.inNetns(List.of("ip", "-ts", "-o", "monitor", "route")))
              .redirectErrorStream(true)
              .start();
      return new RouteWatch(p, ns.netns(), false);
    } catch (IOException e) {
      throw new IllegalStateException("ip monitor route in " + ns.netns() + ": " + e.getMessage());
    }
  }

  /**
   * Watches the BGP UPDATEs arriving at {@code address} in {@code ns} instead: {@code tcpdump}'s
   * BGP decoder (RFC 4271 §4.3: withdrawn routes and NLRI), each prefix an event ({@code deleted}
   * for a withdrawal) at the packet's capture time. The moment a ToR received a route, before bgpd
   * and zebra handled it. An OPEN (RFC 4271 §4.2) from {@code a.b.c.d} is an event for the prefix
   * {@code "OPEN a.b.c.d"}, its End-of-RIB (RFC 4724 §2) one for {@code "EOR a.b.c.d"}.
   */
  public static RouteWatch openWire(Node ns, String address) {
    try {
      Process p =
          Programs.processBuilder(
                  ns.inNetns(
                      List.of(
                          "tcpdump",
                          "--immediate-mode",
                          "-l",
                          "-n",
                          "-tt",
                          "-v",
                          "-i",
                          "any",
                          "dst host " + address + " and tcp port 179")))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      return new RouteWatch(p, ns.netns(), true);
    } catch (IOException e) {
      throw new IllegalStateException("tcpdump in " + ns.netns() + ": " + e.getMessage());
    }
  }

  private static final java.util.regex.Pattern PREFIX =
      java.util.regex.Pattern.compile("[0-9a-f.:]+/[0-9]+");

  private void readWire() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      long stampNanos = 0;
      long lag = -1;
      Boolean withdrawn = null;
      String source = null;
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isEmpty() && Character.isDigit(line.charAt(0))) {
          long now = System.nanoTime();
          Instant wall = Instant.now();
          String[] t = line.split(" ", 2)[0].split("\\.");
          Instant stamped =
              Instant.ofEpochSecond(Long.parseLong(t[0]), Long.parseLong(t[1]) * 1_000L);
          lag = Duration.between(stamped, wall).toNanos();
          stampNanos = now - lag;
          withdrawn = null;
          source = null;
          synchronized (events) {
            lags.add(lag);
          }
          continue;
        }
        String x = line.strip();
        if (source == null && x.contains(" > ")) {
          String from = x.split(" ", 2)[0];
          source = from.substring(0, Math.max(0, from.lastIndexOf('.')));
        } else if (x.startsWith("Open Message")) {
          synchronized (events) {
            events.add(new Event(false, "OPEN " + source, stampNanos, lag));
            events.notifyAll();
          }
        } else if (x.startsWith("End-of-Rib Marker")) {
          // an UPDATE with nothing in it (RFC 4724 §2)
          synchronized (events) {
            events.add(new Event(false, "EOR " + source, stampNanos, lag));
            events.notifyAll();
          }
        } else if (x.equals("Updated routes:")) {
          withdrawn = false;
        } else if (x.equals("Withdrawn routes:")) {
          withdrawn = true;
        } else if (withdrawn != null && PREFIX.matcher(x).matches()) {
          String prefix = x;
          if (prefix.endsWith("/32") || prefix.endsWith("/128")) {
            prefix = prefix.substring(0, prefix.indexOf('/'));
          }
          synchronized (events) {
            events.add(new Event(withdrawn, prefix, stampNanos, lag));
            events.notifyAll();
          }
        } else {
          withdrawn = null;
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process ended
    }
  }

  private void read() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        long now = System.nanoTime();
        Instant wall = Instant.now();
        Event e = parse(line, now, wall);
        if (e != null) {
          synchronized (events) {
            events.add(e);
            if (e.lagNanos() >= 0) {
              lags.add(e.lagNanos());
            }
            events.notifyAll();
          }
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  static Event parse(String line, long now, Instant wall) {
    long lag = -1;
    String rest = line;
    if (rest.startsWith("[")) {
      int end = rest.indexOf(']');
      if (end < 0) {
        return null;
      }
      try {
        Instant stamped =
            LocalDateTime.parse(rest.substring(1, end)).atZone(ZoneId.systemDefault()).toInstant();
        lag = Duration.between(stamped, wall).toNanos();
      } catch (DateTimeParseException e) {
        lag = -1;
      }
      rest = rest.substring(end + 1).strip();
    }
    boolean deleted = rest.startsWith("Deleted ");
    if (deleted) {
      rest = rest.substring("Deleted ".length());
    }
    String[] words = rest.split("\\s+");
    if (words.length == 0 || words[0].isEmpty()) {
      return null;
    }
    String prefix = words[0];
    if (prefix.endsWith("/32") || prefix.endsWith("/128")) {
      prefix = prefix.substring(0, prefix.indexOf('/'));
    }
    List<String> via = new ArrayList<>();
    for (int i = 1; i + 1 < words.length; i++) {
      if (words[i].equals("via")) {
        via.add(words[i + 1]);
      }
    }
    return new Event(deleted, prefix, now, lag, List.copyOf(via));
  }

  /** The events for {@code prefix} read at or after {@code sinceNanos}, in order. */
  public List<Event> events(String prefix, long sinceNanos) {
    synchronized (events) {
      return events.stream()
          .filter(e -> e.readNanos() >= sinceNanos && e.prefix().equals(prefix))
          .toList();
    }
  }

  /**
   * The read time of the first event for {@code prefix} ({@code deleted} or added/replaced) read at
   * or after {@code sinceNanos}; waits up to {@code timeout}; empty when none came.
   */
  public OptionalLong await(String prefix, boolean deleted, long sinceNanos, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (events) {
      while (true) {
        for (Event e : events) {
          if (e.readNanos() >= sinceNanos && e.deleted() == deleted && e.prefix().equals(prefix)) {
            return OptionalLong.of(e.readNanos());
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return OptionalLong.empty();
        }
        try {
          events.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return OptionalLong.empty();
        }
      }
    }
  }

  /** Every event's observation lag (ns) so far. */
  public List<Long> lagNanos() {
    synchronized (events) {
      return List.copyOf(lags);
    }
  }

  /** Forgets the events read so far (not their lags). */
  public void clear() {
    synchronized (events) {
      events.clear();
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      reader.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
