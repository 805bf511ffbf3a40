package dev.sart.cli;

import com.google.protobuf.Timestamp;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.AsSegment;
import dev.sart.proto.v1.MessageCounter;
import dev.sart.proto.v1.NeighborCapability;
import dev.sart.proto.v1.Path;
import dev.sart.proto.v1.Peer;
import dev.sart.proto.v1.PrefixCount;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** API messages → the JSON shapes of sart's CLI (camelCase keys) and plain-text cells. */
final class Views {
  private Views() {}

  /** sart's JSON state names, with CONNECT and ACTIVE where they belong (sart swapped them). */
  static String state(Peer.State s) {
    return switch (s) {
      case IDLE -> "Idle";
      case CONNECT -> "Connect";
      case ACTIVE -> "Active";
      case OPEN_SENT -> "OpenSent";
      case OPEN_CONFIRM -> "OpenConfirm";
      case ESTABLISHED -> "Established";
      default -> "Unknown";
    };
  }

  static Map<String, Object> family(AddressFamily f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("afi", f.getAfi() == AddressFamily.Afi.AFI_IP6 ? "ipv6" : "ipv4");
    m.put("safi", f.getSafi() == AddressFamily.Safi.SAFI_MULTICAST ? "multicast" : "unicast");
    return m;
  }

  static Map<String, Object> counter(MessageCounter c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("open", c.getOpen());
    m.put("update", c.getUpdate());
    m.put("keepAlive", c.getKeepalive());
    m.put("notification", c.getNotification());
    m.put("routeRefresh", c.getRouteRefresh());
    return m;
  }

  static String time(Timestamp t) {
    return t.getSeconds() == 0 && t.getNanos() == 0
        ? null
        : Instant.ofEpochSecond(t.getSeconds(), t.getNanos()).toString();
  }

  static Map<String, Object> peer(Peer p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", p.getName());
    m.put("address", p.getAddress());
    m.put("asn", Integer.toUnsignedLong(p.getAsn()));
    m.put("routerId", p.getRouterId());
    m.put("state", state(p.getState()));
    m.put("uptime", p.hasUptime() ? time(p.getUptime()) : null);
    m.put("holdTime", p.getHoldTime());
    m.put("keepAliveTime", p.getKeepaliveTime());
    m.put("families", p.getFamiliesList().stream().map(Views::family).toList());
    m.put("capabilities", p.getCapabilitiesList().stream().map(Views::capability).toList());
    m.put("sendCounter", counter(p.getSendCounter()));
    m.put("receiveCounter", counter(p.getRecvCounter()));
    m.put("passive", p.getPassiveOpen());
    m.put("connectRetryTime", p.getConnectRetryTime());
    if (p.getPort() != 0 && p.getPort() != 179) {
      m.put("port", p.getPort());
    }
    if (!p.getLocalAddress().isEmpty()) {
      m.put("localAddress", p.getLocalAddress());
    }
    if (p.getMultihopTtl() != 0) {
      m.put("multihopTtl", p.getMultihopTtl());
    }
    if (p.getTtlSecurity()) {
      m.put("ttlSecurity", true); // GTSM, RFC 5082
    }
    m.put("prefixes", p.getPrefixesList().stream().map(Views::prefixes).toList());
    m.put("flaps", Integer.toUnsignedLong(p.getFlaps()));
    if (!p.getLastError().isEmpty()) {
      m.put("lastError", p.getLastError());
    }
    if (!p.getLastReset().isEmpty()) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("reason", p.getLastReset());
      r.put("time", time(p.getLastResetTime()));
      m.put("lastReset", r);
    }
    if (!p.getImportPolicy().isEmpty()) {
      m.put("importPolicy", p.getImportPolicy());
    }
    if (!p.getExportPolicy().isEmpty()) {
      m.put("exportPolicy", p.getExportPolicy());
    }
    if (p.getMaxPrefix().getLimit() != 0) {
      Map<String, Object> mp = new LinkedHashMap<>();
      mp.put("limit", Integer.toUnsignedLong(p.getMaxPrefix().getLimit()));
      mp.put("warningOnly", p.getMaxPrefix().getWarningOnly());
      mp.put("restartTime", p.getMaxPrefix().getRestartTime());
      m.put("maxPrefix", mp);
    }
    if (p.getSoftReconfigurationInbound()) {
      m.put("softReconfigurationInbound", true);
    }
    if (p.getAdvertisePeerAs()) {
      m.put("advertisePeerAs", true);
    }
    if (p.getUpdateGroup() != 0) {
      Map<String, Object> g = new LinkedHashMap<>();
      g.put("id", Integer.toUnsignedLong(p.getUpdateGroup()));
      g.put("members", Integer.toUnsignedLong(p.getUpdateGroupMembers()));
      m.put("updateGroup", g);
    }
    // data-centre fabric additions, each only when set: sart's output otherwise unchanged
    if (p.hasAddPath()) {
      Map<String, Object> ap = new LinkedHashMap<>();
      ap.put("receive", p.getAddPath().getReceiveList().stream().map(Views::family).toList());
      ap.put("send", p.getAddPath().getSendList().stream().map(Views::family).toList());
      ap.put("sendMax", Integer.toUnsignedLong(p.getAddPath().getSendMax()));
      m.put("addPath", ap); // RFC 7911
    }
    if (p.getRouteReflectorClient()) {
      m.put("routeReflectorClient", true); // RFC 4456
    }
    if (p.getNextHopSelf()) {
      m.put("nextHopSelf", true);
    }
    if (!p.getInterface().isEmpty()) {
      m.put("interface", p.getInterface()); // unnumbered: address is the learned link-local one
    }
    if (!p.getRemoteAs().isEmpty()) {
      m.put("remoteAs", p.getRemoteAs()); // external|internal: asn is the one the OPEN named
    }
    if (p.hasGracefulRestart()) {
      // RFC 4724 and RFC 8538 settings, only when not the defaults (helper on, 120 s, no N bit)
      var gr = p.getGracefulRestart();
      int restartTime = gr.getRestartTime() == 0 ? 120 : gr.getRestartTime();
      if (gr.getHelperDisabled() || restartTime != 120 || gr.getNotification()) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("helper", !gr.getHelperDisabled());
        g.put("restartTime", restartTime);
        g.put("notification", gr.getNotification());
        m.put("gracefulRestart", g);
      }
    }
    if (p.hasBfd()) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("state", p.getBfd().getState());
      b.put("remoteState", p.getBfd().getRemoteState());
      b.put("minTx", p.getBfd().getMinTx());
      b.put("minRx", p.getBfd().getMinRx());
      b.put("multiplier", p.getBfd().getMultiplier());
      b.put("detectionTime", p.getBfd().getDetectionTimeMs());
      b.put("diagnostic", p.getBfd().getDiagnostic());
      b.put("downs", p.getBfd().getDowns());
      m.put("bfd", b);
    }
    return m;
  }

  /**
   * One capability of the session's OPENs: sart declared the key and always left it empty; here
   * each entry says which side sent it and what it held.
   */
  static Map<String, Object> capability(NeighborCapability c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("code", c.getCode());
    m.put("name", c.getName());
    m.put("advertised", c.getAdvertised());
    m.put("received", c.getReceived());
    if (!c.getAdvertisedValue().isEmpty()) {
      m.put("advertisedValue", c.getAdvertisedValue());
    }
    if (!c.getReceivedValue().isEmpty()) {
      m.put("receivedValue", c.getReceivedValue());
    }
    return m;
  }

  static Map<String, Object> prefixes(PrefixCount c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("family", family(c.getFamily()));
    m.put("received", c.getReceived());
    m.put("accepted", c.getAccepted());
    m.put("advertised", c.getAdvertised());
    return m;
  }

  /** "ipv4/unicast". */
  static String familyName(AddressFamily f) {
    Map<String, Object> m = family(f);
    return m.get("afi") + "/" + m.get("safi");
  }

  /**
   * The neighbour column of {@code sart bgp neighbor list}: the address, or for an unnumbered one
   * the interface and the link-local address learned on it ("eth1 fe80::2", "eth1" before).
   */
  static String neighbor(Peer p) {
    if (p.getInterface().isEmpty()) {
      return p.getAddress();
    }
    return p.getAddress().isEmpty() ? p.getInterface() : p.getInterface() + " " + p.getAddress();
  }

  static Map<String, Object> path(Path p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nlri", p.getNlri());
    m.put("family", family(p.getFamily()));
    m.put("origin", p.getOrigin());
    m.put("nextHops", p.getNextHopsList());
    List<Map<String, Object>> segs = new ArrayList<>();
    for (AsSegment s : p.getSegmentsList()) {
      Map<String, Object> seg = new LinkedHashMap<>();
      seg.put("type", s.getType() == AsSegment.Type.AS_SET ? "set" : "sequence");
      seg.put("elm", s.getElmList().stream().map(Integer::toUnsignedLong).toList());
      segs.add(seg);
    }
    m.put("segments", segs);
    m.put("localPref", Integer.toUnsignedLong(p.getLocalPref()));
    m.put("med", Integer.toUnsignedLong(p.getMed()));
    m.put("peerAsn", Integer.toUnsignedLong(p.getPeerAsn()));
    m.put("peerAddr", p.getPeerAddr());
    m.put("best", p.getBest());
    if (p.getStale()) {
      m.put("stale", true); // only when true: sart's output otherwise unchanged
    }
    if (p.getPathId() != 0) {
      m.put("pathId", Integer.toUnsignedLong(p.getPathId())); // ADD-PATH (RFC 7911) only
    }
    m.put("timestamp", p.hasTimestamp() ? time(p.getTimestamp()) : null);
    return m;
  }

  /** "[65001, 65002]" with sets as "{...}" inside. */
  static String asPath(Path p) {
    return p.getSegmentsList().stream()
        .map(
            s -> {
              String elms =
                  s.getElmList().stream()
                      .map(Integer::toUnsignedString)
                      .collect(Collectors.joining(" "));
              return s.getType() == AsSegment.Type.AS_SET ? "{" + elms + "}" : elms;
            })
        .collect(Collectors.joining(" "));
  }

  static String origin(int code) {
    return switch (code) {
      case 0 -> "i";
      case 1 -> "e";
      default -> "?";
    };
  }

  static String uptime(Peer p) {
    if (!p.hasUptime() || p.getState() != Peer.State.ESTABLISHED) {
      return "-";
    }
    return since(p.getUptime());
  }

  /** How long ago {@code t} was: "00:01:02", or "2d3h" beyond a day. */
  static String since(Timestamp t) {
    Duration d = Duration.between(Instant.ofEpochSecond(t.getSeconds()), Instant.now());
    long s = Math.max(0, d.toSeconds());
    return s >= 86400
        ? s / 86400 + "d" + (s % 86400) / 3600 + "h"
        : String.format("%02d:%02d:%02d", s / 3600, (s % 3600) / 60, s % 60);
  }
}
