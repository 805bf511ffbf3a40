package dev.sart.agent.cni;

import static dev.sart.agent.cni.CniRuntime.env;
import static dev.sart.agent.cni.CniRuntime.exec;
import static dev.sart.agent.cni.CniRuntime.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.agent.ipam.Allocation;
import dev.sart.agent.ipam.Block;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The plugin binary run exactly as a container runtime runs it (environment + netconf on stdin)
 * against the agent's CNI server in this JVM, on a "node" namespace with "pods" as namespaces.
 */
class CniPluginTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Topology t;
  private Node node;
  private Path socket;
  private CniAgent agent;
  private CniRuntime runtime;

  @BeforeEach
  void start() throws Exception {
    t = testbed.topology();
    node = t.node("node");
    socket = t.dir().resolve("sart.sock");
    agent = CniAgent.start(config());
    runtime = new CniRuntime(socket);
  }

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
  }

  private AgentConfig config() {
    return AgentConfig.of(
            socket,
            Path.of("/var/run/netns", node.netns()),
            "192.0.2.1",
            "2001:db8::1",
            List.of(
                Block.parse("default=198.51.100.0/28"),
                Block.parse("default=2001:db8:1::/124"),
                Block.parse("small=203.0.113.0/30")),
            "default")
        .withMtu(1400);
  }

  private static String ns(Node pod) {
    return "/var/run/netns/" + pod.netns();
  }

  private JsonNode add(String id, Node pod, String conf) {
    CniRuntime.Outcome o = exec(env("ADD", id, ns(pod), "eth0"), conf).ok();
    return o.json();
  }

  private List<String> hostVeths() {
    List<String> names = new ArrayList<>();
    for (JsonNode l : json(node.exec("ip", "-j", "-d", "link", "show"))) {
      if (l.path("ifname").asText().startsWith("sart")) {
        names.add(l.path("ifname").asText() + " " + l.path("ifalias").asText());
      }
    }
    return names;
  }

  private List<String> podRoutesOnNode() {
    List<String> out = new ArrayList<>();
    for (String fam : List.of("-4", "-6")) {
      for (JsonNode r : json(node.exec("ip", fam, "-j", "route", "show", "table", "120"))) {
        out.add(r.path("dst").asText());
      }
    }
    return out;
  }

  private static JsonNode json(String s) {
    try {
      return CniRuntime.JSON.readTree(s.isBlank() ? "[]" : s);
    } catch (Exception e) {
      throw new AssertionError(s, e);
    }
  }

  private static List<String> addresses(JsonNode result) {
    return result.path("ips").findValuesAsText("address");
  }

  @Test
  void theSocketIsPrivateToRoot() throws Exception {
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
  }

  @Test
  void everyVerbInEverySupportedVersion() {
    int n = 0;
    for (String v : CniVersion.SUPPORTED) {
      Node pod = t.node("p" + n);
      String id = "ctr" + n++;
      String conf = runtime.conf(v);
      JsonNode version = exec(env("VERSION", null, null, null), conf).ok().json();
      assertEquals(v, version.path("cniVersion").asText());
      assertEquals(CniVersion.SUPPORTED, toList(version.path("supportedVersions")));

      JsonNode result = add(id, pod, conf);
      CniRuntime.validateResult(v, result);
      List<String> addrs = addresses(result);
      assertEquals(2, addrs.size(), result.toString());
      assertTrue(
          addrs.get(0).startsWith("198.51.100.") && addrs.get(0).endsWith("/32"), addrs.toString());
      assertTrue(
          addrs.get(1).startsWith("2001:db8:1::") && addrs.get(1).endsWith("/128"),
          addrs.toString());
      String inPod = pod.exec("ip", "-j", "address", "show", "eth0");
      assertTrue(
          inPod.contains(addrs.get(0).split("/")[0]) && inPod.contains(addrs.get(1).split("/")[0]),
          inPod);

      String withPrev = with(conf, "prevResult", result.toString());
      CniRuntime.Outcome check = exec(env("CHECK", id, ns(pod), "eth0"), withPrev);
      if (v.startsWith("0.3.")) {
        check.error(CniException.INCOMPATIBLE_VERSION);
      } else {
        assertEquals("", check.ok().stdout());
      }
      CniRuntime.Outcome status = exec(env("STATUS", null, null, null), conf);
      String valid = "[{\"containerID\":\"" + id + "\",\"ifname\":\"eth0\"}]";
      CniRuntime.Outcome gc =
          exec(env("GC", null, null, null), with(conf, "cni.dev/valid-attachments", valid));
      if (v.equals("1.1.0")) {
        assertEquals("", status.ok().stdout());
        assertEquals("", gc.ok().stdout());
        assertEquals(1, hostVeths().size(), "GC keeps the valid attachment");
      } else {
        status.error(CniException.INCOMPATIBLE_VERSION);
        gc.error(CniException.INCOMPATIBLE_VERSION);
      }

      assertEquals("", exec(env("DEL", id, ns(pod), "eth0"), withPrev).ok().stdout());
      assertEquals(List.of(), hostVeths());
      assertEquals(List.of(), podRoutesOnNode());
      exec(env("DEL", id, ns(pod), "eth0"), withPrev).ok();
    }
    assertEquals(List.of(), agent.allocations());
  }

  private static List<String> toList(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(x -> out.add(x.asText()));
    return out;
  }

  @Test
  void twoPodsOnOneNodeReachEachOtherOverIpv4AndIpv6() {
    Node a = t.node("a");
    Node b = t.node("b");
    JsonNode ra = add("pod-a", a, runtime.conf("1.0.0"));
    JsonNode rb = add("pod-b", b, runtime.conf("1.0.0"));
    String b4 = addresses(rb).get(0).split("/")[0];
    String b6 = addresses(rb).get(1).split("/")[0];
    String a4 = addresses(ra).get(0).split("/")[0];
    a.exec("ping", "-c", "2", "-W", "5", b4);
    a.exec("ping", "-6", "-c", "2", "-W", "5", b6);
    b.exec("ping", "-c", "1", "-W", "5", a4);
    node.exec("ping", "-c", "1", "-W", "5", a4);
    String link = a.exec("ip", "-j", "link", "show", "eth0");
    assertTrue(link.contains("\"mtu\":1400"), "the MTU of the configuration: " + link);
    String routes = a.exec("ip", "-j", "route", "show", "default");
    assertTrue(
        routes.contains("\"gateway\":\"192.0.2.1\""), "default route via the node: " + routes);
  }

  @Test
  void aRepeatedAddReturnsTheSameResultAndAFailedAddLeavesNothing() {
    Node p = t.node("p");
    JsonNode first = add("same", p, runtime.conf("1.0.0"));
    JsonNode again = add("same", p, runtime.conf("1.0.0"));
    assertEquals(first, again);
    assertEquals(1, hostVeths().size());

    String small = with(runtime.conf("1.0.0"), "pool", "\"small\"");
    add("s1", t.node("s1"), small);
    add("s2", t.node("s2"), small);
    Node s3 = t.node("s3");
    JsonNode full = exec(env("ADD", "s3", ns(s3), "eth0"), small).error(CniException.IPAM);
    assertTrue(full.path("msg").asText().contains("no free IPv4"), full.toString());
    assertEquals(3, hostVeths().size(), "no interface for the failed ADD");

    Node late = t.node("late");
    exec(
            env("ADD", "late", "/var/run/netns/" + late.netns() + "-missing", "eth0"),
            runtime.conf("1.0.0"))
        .error(CniException.UNKNOWN_CONTAINER);
    assertEquals(3, agent.allocations().size(), "the address of the failed ADD is given back");
    // the undone ADD made nothing in the namespace it reached either: make ADD fail after the veth
    late.exec("ip", "link", "add", "eth0", "type", "veth", "peer", "name", "other");
    exec(env("ADD", "late", ns(late), "eth0"), runtime.conf("1.0.0")).error(CniException.INTERNAL);
    assertEquals(3, hostVeths().size());
    assertEquals(3, agent.allocations().size());
  }

  @Test
  void delSucceedsWhenTheNamespaceTheLinkOrTheAllocationIsGone() {
    Node p = t.node("p");
    add("gone", p, runtime.conf("1.0.0"));
    dev.sart.testbed.Shell.run("ip", "netns", "del", p.netns());
    exec(env("DEL", "gone", ns(p), "eth0"), runtime.conf("1.0.0")).ok();
    exec(env("DEL", "gone", "", "eth0"), runtime.conf("1.0.0")).ok();
    exec(env("DEL", "never-added", null, "eth0"), runtime.conf("0.3.1")).ok();
    assertEquals(List.of(), hostVeths());
    assertEquals(List.of(), podRoutesOnNode());
    assertEquals(List.of(), agent.allocations());
  }

  @Test
  void checkDetectsARemovedRouteAndAWrongPreviousResult() {
    Node p = t.node("p");
    String conf = runtime.conf("1.0.0");
    JsonNode r = add("chk", p, conf);
    String prev = with(conf, "prevResult", r.toString());
    exec(env("CHECK", "chk", ns(p), "eth0"), prev).ok();

    p.exec("ip", "route", "del", "default");
    JsonNode e = exec(env("CHECK", "chk", ns(p), "eth0"), prev).error(CniException.NETLINK);
    assertTrue(e.path("msg").asText().contains("no default route via 192.0.2.1"), e.toString());
    add("chk", p, conf);
    exec(env("CHECK", "chk", ns(p), "eth0"), prev).ok();

    node.exec("ip", "route", "del", addresses(r).get(0), "table", "120");
    e = exec(env("CHECK", "chk", ns(p), "eth0"), prev).error(CniException.NETLINK);
    assertTrue(e.path("msg").asText().contains("table 120"), e.toString());
    add("chk", p, conf);

    String wrong = prev.replace(addresses(r).get(0), "198.51.100.14/32");
    exec(env("CHECK", "chk", ns(p), "eth0"), wrong).error(CniException.IPAM);
    exec(env("CHECK", "nobody", ns(p), "eth0"), prev).error(CniException.IPAM);
    exec(env("CHECK", "chk", ns(p), "eth0"), conf).error(CniException.INVALID_NETWORK_CONFIG);
  }

  @Test
  void badRequestsGetTheSpecErrorCodes() throws Exception {
    Node p = t.node("p");
    exec(env("ADD", "x", ns(p), "eth0"), runtime.conf("0.2.0"))
        .error(CniException.INCOMPATIBLE_VERSION);
    exec(env("ADD", "x", ns(p), "eth0"), "{\"cniVersion\":").error(CniException.DECODE);
    exec(env("ADD", null, ns(p), "eth0"), runtime.conf("1.0.0"))
        .error(CniException.INVALID_ENVIRONMENT);
    exec(env("ADD", "x", ns(p), null), runtime.conf("1.0.0"))
        .error(CniException.INVALID_ENVIRONMENT);
    exec(env("ADD", "x", null, "eth0"), runtime.conf("1.0.0"))
        .error(CniException.INVALID_ENVIRONMENT);
    exec(env("ADD", "x", ns(p), "eth0"), with(runtime.conf("1.0.0"), "mtu", "\"big\""))
        .error(CniException.INVALID_NETWORK_CONFIG);
    exec(env("ADD", "x", ns(p), "eth0"), with(runtime.conf("1.0.0"), "pool", "\"nope\""))
        .error(CniException.TRY_AGAIN_LATER);
    agent.close();
    agent = null;
    JsonNode down =
        exec(env("ADD", "x", ns(p), "eth0"), runtime.conf("1.0.0"))
            .error(CniException.TRY_AGAIN_LATER);
    assertEquals("1.0.0", down.path("cniVersion").asText());
    exec(env("STATUS", null, null, null), runtime.conf("1.1.0")).error(CniException.NOT_AVAILABLE);
    assertEquals(List.of(), hostVeths());
  }

  @Test
  void afterAnAgentRestartPodsKeepTheirAddressesAndNothingLeaks() throws Exception {
    List<Node> pods = new ArrayList<>();
    Set<String> before = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      Node p = t.node("r" + i);
      pods.add(p);
      before.addAll(addresses(add("r" + i, p, runtime.conf("1.0.0"))));
    }
    List<Allocation> allocations = agent.allocations();
    // an ADD cut short (a recorded veth without routes) and an orphan route of ours
    node.exec(
        "ip", "link", "add", "sartdeadbeef000", "type", "veth", "peer", "name", "sartdeadbeef001");
    node.exec("ip", "link", "set", "sartdeadbeef000", "alias", "default/ghost/eth0");
    node.exec("ip", "route", "add", "198.51.100.13/32", "dev", "lo", "table", "120", "proto", "50");
    agent.close();
    agent = CniAgent.start(config());

    assertEquals(
        new HashSet<>(allocations), new HashSet<>(agent.allocations()), "restored from the kernel");
    assertEquals(3, hostVeths().size(), "the half-made interface is gone: " + hostVeths());
    assertFalse(podRoutesOnNode().contains("198.51.100.13"), "the orphan route is gone");
    for (int i = 0; i < 3; i++) {
      String prev =
          with(
              runtime.conf("1.0.0"),
              "prevResult",
              "{\"ips\":["
                  + addresses(add("r" + i, pods.get(i), runtime.conf("1.0.0"))).stream()
                      .map(a -> "{\"address\":\"" + a + "\"}")
                      .reduce((x, y) -> x + "," + y)
                      .orElseThrow()
                  + "]}");
      exec(env("CHECK", "r" + i, ns(pods.get(i)), "eth0"), prev).ok();
    }
    JsonNode fresh = add("new", t.node("fresh"), runtime.conf("1.0.0"));
    for (String a : addresses(fresh)) {
      assertFalse(before.contains(a), a + " is held by a pod from before the restart");
    }
    for (int i = 0; i < 3; i++) {
      exec(env("DEL", "r" + i, ns(pods.get(i)), "eth0"), runtime.conf("1.0.0")).ok();
    }
    exec(env("DEL", "new", ns(t.node("x")), "eth0"), runtime.conf("1.0.0")).ok();
    assertEquals(List.of(), hostVeths());
    assertEquals(List.of(), podRoutesOnNode());
    assertEquals(List.of(), agent.allocations());
  }

  @Test
  void gcDeletesTheAttachmentsTheRuntimeDoesNotList() {
    Node keep = t.node("keep");
    Node drop = t.node("drop");
    add("keep", keep, runtime.conf("1.1.0"));
    add("drop", drop, runtime.conf("1.1.0"));
    String conf =
        with(
            runtime.conf("1.1.0"),
            "cni.dev/valid-attachments",
            "[{\"containerID\":\"keep\",\"ifname\":\"eth0\"}]");
    exec(env("GC", null, null, null), conf).ok();
    assertEquals(1, hostVeths().size());
    assertTrue(hostVeths().getFirst().endsWith("default/keep/eth0"), hostVeths().toString());
    assertEquals(1, agent.allocations().size());
    assertEquals("", drop.exec("ip", "-br", "link", "show", "type", "veth"));
    assertNotEquals("", keep.exec("ip", "-br", "link", "show", "type", "veth"));
    exec(env("GC", null, null, null), runtime.conf("1.1.0"))
        .error(CniException.INVALID_NETWORK_CONFIG);
  }
}
