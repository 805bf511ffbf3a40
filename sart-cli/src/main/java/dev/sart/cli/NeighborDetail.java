package dev.sart.cli;

import dev.sart.proto.v1.MessageCounter;
import dev.sart.proto.v1.NeighborCapability;
import dev.sart.proto.v1.Peer;
import dev.sart.proto.v1.PrefixCount;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * {@code sart bgp neighbor get}'s plain output: one neighbour in detail, as a router's {@code show
 * bgp neighbors} shows it — the session, the capabilities each side's OPEN carried, the prefixes
 * per family and the messages.
 */
final class NeighborDetail {
  private NeighborDetail() {}

  static void print(PrintWriter out, Peer p) {
    out.println(
        "neighbor "
            + Views.neighbor(p)
            + "  AS "
            + Integer.toUnsignedString(p.getAsn())
            + (p.getName().isEmpty() ? "" : "  " + p.getName()));
    Map<String, String> kv = new LinkedHashMap<>();
    String state = Views.state(p.getState());
    kv.put(
        "state",
        (p.getState() == Peer.State.ESTABLISHED ? state + " for " + Views.uptime(p) : state)
            + ", flaps "
            + Integer.toUnsignedString(p.getFlaps())
            + (p.getPassiveOpen() ? ", passive" : ""));
    if (!p.getLastReset().isEmpty()) {
      kv.put("last reset", Views.since(p.getLastResetTime()) + " ago: " + p.getLastReset());
    }
    if (!p.getLastError().isEmpty() && !p.getLastError().equals(p.getLastReset())) {
      kv.put("last error", p.getLastError());
    }
    kv.put("router id", p.getRouterId().isEmpty() ? "-" : p.getRouterId());
    kv.put(
        "timers",
        "hold "
            + p.getHoldTime()
            + " s, keepalive "
            + p.getKeepaliveTime()
            + " s, connect retry "
            + p.getConnectRetryTime()
            + " s");
    kv.put(
        "transport",
        "TCP port "
            + (p.getPort() == 0 ? 179 : p.getPort())
            + (p.getLocalAddress().isEmpty() ? "" : " from " + p.getLocalAddress())
            + (p.getMultihopTtl() == 0 ? "" : ", multihop TTL " + p.getMultihopTtl())
            + (p.getTtlSecurity() ? ", GTSM (TTL 255)" : ""));
    kv.put(
        "families",
        String.join(", ", p.getFamiliesList().stream().map(Views::familyName).toList()));
    if (!p.getImportPolicy().isEmpty() || !p.getExportPolicy().isEmpty()) {
      kv.put(
          "policies",
          "import " + orDash(p.getImportPolicy()) + ", export " + orDash(p.getExportPolicy()));
    }
    if (p.getUpdateGroup() != 0) {
      kv.put(
          "update group",
          Integer.toUnsignedString(p.getUpdateGroup())
              + ", "
              + Integer.toUnsignedString(p.getUpdateGroupMembers())
              + " member(s)");
    }
    if (p.hasBfd()) {
      var b = p.getBfd();
      kv.put(
          "bfd",
          (b.getState().isEmpty() ? "configured" : b.getState())
              + ", detection "
              + b.getDetectionTimeMs()
              + " ms, downs "
              + b.getDowns());
    }
    int w = kv.keySet().stream().mapToInt(String::length).max().orElse(0);
    kv.forEach((k, v) -> out.println("  " + k + " ".repeat(w - k.length() + 2) + v));

    if (p.getCapabilitiesCount() > 0) {
      out.println();
      List<List<String>> rows = new ArrayList<>();
      for (NeighborCapability c : p.getCapabilitiesList()) {
        rows.add(
            List.of(
                c.getName(),
                cell(c.getAdvertised(), c.getAdvertisedValue()),
                cell(c.getReceived(), c.getReceivedValue())));
      }
      Output.table(out, List.of("CAPABILITY", "ADVERTISED", "RECEIVED"), rows);
    }
    if (p.getPrefixesCount() > 0) {
      out.println();
      List<List<String>> rows = new ArrayList<>();
      for (PrefixCount c : p.getPrefixesList()) {
        rows.add(
            List.of(
                Views.familyName(c.getFamily()),
                Long.toUnsignedString(c.getReceived()),
                Long.toUnsignedString(c.getAccepted()),
                Long.toUnsignedString(c.getAdvertised())));
      }
      Output.table(out, List.of("PREFIXES", "RECEIVED", "ACCEPTED", "ADVERTISED"), rows);
    }
    out.println();
    List<List<String>> rows = new ArrayList<>();
    rows.add(messages("OPEN", p, MessageCounter::getOpen));
    rows.add(messages("UPDATE", p, MessageCounter::getUpdate));
    rows.add(messages("KEEPALIVE", p, MessageCounter::getKeepalive));
    rows.add(messages("NOTIFICATION", p, MessageCounter::getNotification));
    rows.add(messages("ROUTE-REFRESH", p, MessageCounter::getRouteRefresh));
    Output.table(out, List.of("MESSAGES", "SENT", "RECEIVED"), rows);
    out.flush();
  }

  /**
   * Why a session is not up, for one line: " (down 00:00:12: REASON; last error: ERROR)", each part
   * only when known and the error only when it is not the reason; empty while it is up.
   */
  static String why(Peer p) {
    if (p.getState() == Peer.State.ESTABLISHED) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    if (!p.getLastReset().isEmpty()) {
      parts.add("down " + Views.since(p.getLastResetTime()) + ": " + p.getLastReset());
    }
    if (!p.getLastError().isEmpty() && !p.getLastError().equals(p.getLastReset())) {
      parts.add("last error: " + p.getLastError());
    }
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  /** The prefixes the neighbour sent that its import policy accepted, in every family. */
  static long accepted(Peer p) {
    return p.getPrefixesList().stream().mapToLong(PrefixCount::getAccepted).sum();
  }

  /** The prefixes advertised to the neighbour, in every family. */
  static long advertised(Peer p) {
    return p.getPrefixesList().stream().mapToLong(PrefixCount::getAdvertised).sum();
  }

  private static List<String> messages(String type, Peer p, ToIntFunction<MessageCounter> f) {
    return List.of(
        type,
        Integer.toUnsignedString(f.applyAsInt(p.getSendCounter())),
        Integer.toUnsignedString(f.applyAsInt(p.getRecvCounter())));
  }

  /** A capability's cell: "-" when that side did not send it, its value, or "yes". */
  private static String cell(boolean sent, String value) {
    return !sent ? "-" : value.isEmpty() ? "yes" : value;
  }

  private static String orDash(String s) {
    return s.isEmpty() ? "-" : s;
  }
}
