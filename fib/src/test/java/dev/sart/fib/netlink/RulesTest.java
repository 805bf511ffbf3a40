package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RulesTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;
  private Netlink nl;

  @BeforeEach
  void open() {
    node = testbed.topology().node("a");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
  }

  @AfterEach
  void close() {
    nl.close();
    ns.close();
  }

  @Test
  void addListAndDeleteIpv4AndIpv6Rules() {
    Rule full =
        Rule.lookup(Family.INET, 100, 1000)
            .withFrom(IpPrefix.parse("192.0.2.0/24"))
            .withTo(IpPrefix.parse("198.51.100.0/24"))
            .withIif("v0")
            .withFwmark(0x10, 0xff);
    Rule byOif = Rule.lookup(Family.INET, 101, 0).withAction(RuleAction.UNREACHABLE).withOif("v1");
    Rule v6 =
        Rule.lookup(Family.INET6, 200, 7)
            .withFrom(IpPrefix.parse("2001:db8::/32"))
            .withProtocol(Rtnl.RTPROT_BGP);
    Rule v6mark = Rule.lookup(Family.INET6, 201, 70000).withFwmark(0x20, 0);
    for (Rule r : List.of(full, byOif, v6, v6mark)) {
      nl.rules().add(r);
    }
    assertEquals(0xffffffff, v6mark.fwmask(), "a mark without a mask compares all bits");

    List<Rule> dumped = nl.rules().list();
    for (Rule r : List.of(full, byOif, v6, v6mark)) {
      assertTrue(dumped.contains(r), r + " in " + dumped);
    }
    assertEquals(canonical(dumped), oracle(), "every rule, as ip -j rule shows them");
    assertEquals(
        List.of(0, 200, 201, 32766),
        nl.rules().list(Family.INET6).stream().map(Rule::priority).toList());

    for (Rule r : List.of(full, byOif, v6, v6mark)) {
      nl.rules().delete(r);
    }
    assertEquals(
        List.of(0, 32766, 32767),
        nl.rules().list(Family.INET).stream().map(Rule::priority).toList());
    assertEquals(canonical(nl.rules().list()), oracle());
  }

  @Test
  void errorsNameTheRule() {
    Rule r = Rule.lookup(Family.INET, 100, 1000).withFrom(IpPrefix.parse("192.0.2.0/24"));
    nl.rules().add(r);
    NetlinkException exists = assertThrows(NetlinkException.class, () -> nl.rules().add(r));
    assertEquals(
        "add rule 100 from 192.0.2.0/24 lookup 1000: File exists (EEXIST)", exists.getMessage());
    nl.rules().delete(r);
    NetlinkException missing = assertThrows(NetlinkException.class, () -> nl.rules().delete(r));
    assertEquals(Errno.ENOENT, missing.errno());
  }

  @Test
  void aFwmarkRuleSteersLookupsIntoItsTable() {
    int v0 = nl.links().get("v0").index();
    nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
    Route r = Route.of("198.51.100.0/24").table(1000).via("192.0.2.1", v0).build();
    nl.routes().add(r);
    assertEquals(
        Errno.ENETUNREACH,
        assertThrows(NetlinkException.class, () -> nl.routes().get(Ip.parse("198.51.100.5"), 0x10))
            .errno(),
        "no rule yet");
    nl.rules().add(Rule.lookup(Family.INET, 100, 1000).withFwmark(0x10, 0xff));
    assertEquals(r, nl.routes().get(Ip.parse("198.51.100.5"), 0x10));
    assertEquals(
        Errno.ENETUNREACH,
        assertThrows(NetlinkException.class, () -> nl.routes().get(Ip.parse("198.51.100.5")))
            .errno(),
        "without the mark, main has no route");
    JsonNode ip = Oracle.ip(node, "route", "get", "198.51.100.5", "mark", "0x10").get(0);
    assertEquals("192.0.2.1", ip.get("gateway").asText());

    nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));
    Route r6 = Route.of("2001:db8:9::/48").table(70000).via("fd00:1::1", v0).build();
    nl.routes().add(r6);
    nl.rules().add(Rule.lookup(Family.INET6, 100, 70000).withFwmark(0x20, 0));
    assertEquals(r6, nl.routes().get(Ip.parse("2001:db8:9::1"), 0x20));
  }

  @Test
  void rulesInABatch() {
    Batch b = nl.batch();
    for (int i = 0; i < 50; i++) {
      b.addRule(
          Rule.lookup(Family.INET, 1000 + i, 2000 + i)
              .withFrom(IpPrefix.parse("198.51.100." + i + "/32")));
    }
    b.addRule(
        Rule.lookup(Family.INET, 1000, 2000)
            .withFrom(IpPrefix.parse("198.51.100.0/32"))); // a duplicate
    BatchResult result = b.execute();
    assertEquals(Set.of(50), result.failures().keySet());
    assertEquals(Errno.EEXIST, result.failure(50).errno());
    assertEquals(
        53, Oracle.ip(node, "-4", "rule", "show").size(), "50 and the three default rules");
    for (int i = 0; i < 50; i++) {
      b.deleteRule(Rule.lookup(Family.INET, 1000 + i, 2000 + i));
    }
    assertTrue(b.execute().allSucceeded());
    assertEquals(3, nl.rules().list(Family.INET).size());
  }

  private static Set<String> canonical(List<Rule> rules) {
    Set<String> out = new java.util.TreeSet<>();
    for (Rule r : rules) {
      out.add(
          line(
              r.family(),
              r.priority(),
              r.from() == null ? null : r.from().toString(),
              r.to() == null ? null : r.to().toString(),
              r.iif(),
              r.oif(),
              r.fwmark(),
              r.fwmask(),
              r.action() == RuleAction.TO_TBL
                  ? "lookup " + r.table()
                  : "action " + r.action().code(),
              r.protocol()));
    }
    return out;
  }

  private Set<String> oracle() {
    Set<String> out = new java.util.TreeSet<>();
    for (Family f : Family.values()) {
      for (JsonNode j :
          Oracle.ip(node, "-N", "-d", f == Family.INET ? "-4" : "-6", "rule", "show")) {
        String from = prefix(j, "src", "srclen", f);
        String to = prefix(j, "dst", "dstlen", f);
        int mark = j.has("fwmark") ? Integer.decode(j.get("fwmark").asText()) : 0;
        int mask =
            j.has("fwmask")
                ? Integer.parseUnsignedInt(j.get("fwmask").asText().substring(2), 16)
                : mark != 0 ? -1 : 0;
        String action =
            j.has("action")
                ? "action " + j.get("action").asText()
                : "lookup " + j.get("table").asText();
        int proto = j.has("protocol") ? Integer.parseInt(j.get("protocol").asText()) : 0;
        out.add(
            line(
                f,
                j.get("priority").asInt(),
                from,
                to,
                text(j, "iif"),
                text(j, "oif"),
                mark,
                mask,
                action,
                proto));
      }
    }
    return out;
  }

  private static String prefix(JsonNode j, String field, String lenField, Family f) {
    if (!j.has(field) || j.get(field).asText().equals("all")) {
      return null;
    }
    int len = j.has(lenField) ? j.get(lenField).asInt() : f.maxPrefixLength();
    return IpPrefix.parse(j.get(field).asText() + "/" + len).toString();
  }

  private static String text(JsonNode j, String field) {
    return j.has(field) ? j.get(field).asText() : null;
  }

  private static String line(
      Family f,
      int prio,
      String from,
      String to,
      String iif,
      String oif,
      int mark,
      int mask,
      String action,
      int proto) {
    List<String> parts = new ArrayList<>(List.of(f.name(), Integer.toString(prio)));
    if (from != null) {
      parts.add("from " + from);
    }
    if (to != null) {
      parts.add("to " + to);
    }
    if (iif != null) {
      parts.add("iif " + iif);
    }
    if (oif != null) {
      parts.add("oif " + oif);
    }
    if (mark != 0) {
      parts.add("fwmark " + Integer.toHexString(mark) + "/" + Integer.toHexString(mask));
    }
    parts.add(action);
    parts.add("proto " + proto);
    return String.join(" ", parts);
  }
}
