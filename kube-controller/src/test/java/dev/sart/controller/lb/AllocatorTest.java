package dev.sart.controller.lb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AllocType;
import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AllocatorTest {
  private static final Set<Port> HTTP = Set.of(new Port("TCP", 80));

  private static ServiceView lb(
      String key, List<String> pools, List<String> requested, List<InetAddress> current) {
    return new ServiceView(
        key,
        true,
        pools,
        requested.stream().map(Ip::parse).toList(),
        List.of(true),
        "SingleStack",
        false,
        null,
        HTTP,
        current);
  }

  private static ServiceView lb(String key) {
    return lb(key, null, List.of(), List.of());
  }

  private static List<String> text(List<InetAddress> addresses) {
    return addresses.stream().map(Ip::format).toList();
  }

  private static Allocator allocator() {
    var allocator = new Allocator();
    allocator.upsertPool(
        "default-lb-pool", new AddressPoolSpec("10.0.1.0/24", AddressType.SERVICE, null, true));
    allocator.upsertPool(
        "non-default-lb-pool",
        new AddressPoolSpec("10.0.100.0/24", AddressType.SERVICE, 24, false));
    return allocator;
  }

  @Test
  void autoAssignPoolHandsOutAddressesWithoutTheNetworkAddress() {
    var allocator = allocator();
    assertEquals(List.of("10.0.1.1"), text(allocator.reconcile(lb("test/a")).addresses()));
    assertEquals(List.of("10.0.1.2"), text(allocator.reconcile(lb("test/b")).addresses()));
  }

  @Test
  void networkAndBroadcastAreSkippedUnlessThePoolAllowsThem() {
    var allocator = new Allocator();
    allocator.upsertPool(
        "small", new AddressPoolSpec("192.0.2.0/30", AddressType.SERVICE, null, true));
    assertEquals(List.of("192.0.2.1"), text(allocator.reconcile(lb("t/a")).addresses()));
    assertEquals(List.of("192.0.2.2"), text(allocator.reconcile(lb("t/b")).addresses()));
    var full = allocator.reconcile(lb("t/c"));
    assertTrue(full.failed());
    assertEquals("pool small (192.0.2.0/30) has no free address", full.error());

    var open = new Allocator();
    open.upsertPool(
        "open",
        new AddressPoolSpec("192.0.2.0/30", AddressType.SERVICE, AllocType.BIT, null, true, true));
    var got = new ArrayList<String>();
    for (var s : List.of("a", "b", "c", "d")) {
      got.addAll(text(open.reconcile(lb("t/" + s)).addresses()));
    }
    assertEquals(List.of("192.0.2.0", "192.0.2.1", "192.0.2.2", "192.0.2.3"), got);

    var single = new Allocator();
    single.upsertPool("one", new AddressPoolSpec("192.0.2.7/32", AddressType.SERVICE, null, true));
    assertEquals(List.of("192.0.2.7"), text(single.reconcile(lb("t/a")).addresses()));
  }

  @Test
  void aReleasedAddressIsNotHandedOutAgainUntilThePoolHasCycled() {
    var allocator = new Allocator();
    allocator.upsertPool(
        "p", new AddressPoolSpec("192.0.2.0/29", AddressType.SERVICE, null, true)); // .1 .. .6
    assertEquals(List.of("192.0.2.1"), text(allocator.reconcile(lb("t/a")).addresses()));
    assertEquals(List.of("192.0.2.2"), text(allocator.reconcile(lb("t/b")).addresses()));
    allocator.releaseAll("t/a");
    assertEquals(List.of("192.0.2.3"), text(allocator.reconcile(lb("t/c")).addresses()));
    assertEquals(List.of("192.0.2.4"), text(allocator.reconcile(lb("t/d")).addresses()));
    assertEquals(List.of("192.0.2.5"), text(allocator.reconcile(lb("t/e")).addresses()));
    assertEquals(List.of("192.0.2.6"), text(allocator.reconcile(lb("t/f")).addresses()));
    // wrapped: .1 is the only free one
    assertEquals(List.of("192.0.2.1"), text(allocator.reconcile(lb("t/g")).addresses()));
  }

  @Test
  void requestedAddressesComeFromThePoolThatContainsThem() {
    var allocator = allocator();
    var outcome =
        allocator.reconcile(
            lb(
                "test/app-svc-cluster2",
                List.of("non-default-lb-pool"),
                List.of("10.0.100.20"),
                List.of()));
    assertEquals(List.of("10.0.100.20"), text(outcome.addresses()));
    var clash = allocator.reconcile(lb("test/other", null, List.of("10.0.100.20"), List.of()));
    assertEquals("address 10.0.100.20 of pool non-default-lb-pool is in use", clash.error());
    assertEquals(List.of(), clash.addresses());
    var outside = allocator.reconcile(lb("test/x", null, List.of("198.51.100.1"), List.of()));
    assertTrue(
        outside.error().startsWith("requested address 198.51.100.1 is in no usable address"),
        outside.error());
    var network = allocator.reconcile(lb("test/y", null, List.of("10.0.1.0"), List.of()));
    assertTrue(network.failed(), "the network address is not usable");
  }

  @Test
  void onePoolPerNamedPoolAndPoolChangesReleaseTheOldAddress() {
    var allocator = allocator();
    var first = allocator.reconcile(lb("test/s", List.of("default-lb-pool"), List.of(), List.of()));
    assertEquals(List.of("10.0.1.1"), text(first.addresses()));
    var moved =
        allocator.reconcile(
            lb("test/s", List.of("non-default-lb-pool"), List.of(), first.addresses()));
    assertEquals(List.of("10.0.100.1"), text(moved.addresses()));
    assertEquals(List.of("10.0.1.1"), text(moved.released()));
    var two =
        allocator.reconcile(
            lb(
                "test/s",
                List.of("default-lb-pool", "non-default-lb-pool"),
                List.of(),
                moved.addresses()));
    assertEquals(List.of("10.0.1.2", "10.0.100.1"), text(two.addresses()));
    assertEquals(List.of("10.0.1.2"), text(two.allocated()));
    var unknown = allocator.reconcile(lb("test/s", List.of("nope"), List.of(), two.addresses()));
    assertEquals("no service AddressPool named nope", unknown.error());
    assertEquals(two.addresses(), unknown.addresses(), "an error keeps what the Service had");
  }

  @Test
  void sameAnswerOnRepeatedPasses() {
    var allocator = allocator();
    var first = allocator.reconcile(lb("test/s"));
    var again = allocator.reconcile(lb("test/s", null, List.of(), first.addresses()));
    assertEquals(first.addresses(), again.addresses());
    assertTrue(again.allocated().isEmpty());
    assertTrue(again.released().isEmpty());
  }

  @Test
  void notALoadBalancerAnyMoreReleases() {
    var allocator = allocator();
    var first = allocator.reconcile(lb("test/s"));
    var gone =
        allocator.reconcile(
            new ServiceView(
                "test/s",
                false,
                null,
                List.of(),
                List.of(true),
                "SingleStack",
                false,
                null,
                HTTP,
                first.addresses()));
    assertEquals(first.addresses(), gone.released());
    assertEquals(0, allocator.pool("default-lb-pool").orElseThrow().inUse());
  }

  /**
   * A single-stack IPv4 Service with {@code allow-shared-ip: sharingKey}; backend {@code null} is a
   * Cluster Service.
   */
  private static ServiceView shared(
      String key, String sharingKey, Port port, String backend, List<String> requested) {
    return new ServiceView(
        key,
        true,
        null,
        requested.stream().map(Ip::parse).toList(),
        List.of(true),
        "SingleStack",
        false,
        sharingKey,
        Set.of(port),
        List.of(),
        backend);
  }

  @Test
  void sharingOneAddressNeedsTheSameKeyAndPortsThatDoNotClash() {
    var allocator = allocator();
    var dns = shared("kube-system/dns-tcp", "dns", new Port("TCP", 53), null, List.of());
    var dnsUdp = shared("kube-system/dns-udp", "dns", new Port("UDP", 53), null, List.of());
    var clash = shared("kube-system/dns-tcp2", "dns", new Port("TCP", 53), null, List.of());
    var otherKey = shared("kube-system/web", "web", new Port("UDP", 53), null, List.of());
    var a = allocator.reconcile(dns).addresses();
    assertEquals(a, allocator.reconcile(dnsUdp).addresses());
    assertNotEquals(a, allocator.reconcile(clash).addresses());
    assertNotEquals(a, allocator.reconcile(otherKey).addresses());
    allocator.releaseAll("kube-system/dns-tcp");
    assertEquals(
        1 + 2, allocator.pool("default-lb-pool").orElseThrow().inUse(), "still held by dns-udp");
  }

  @Test
  void localServicesShareOnlyWithLocalServicesOfTheSamePods() {
    var allocator = allocator();
    var tcp = new Port("TCP", 53);
    var udp = new Port("UDP", 53);
    var dns =
        allocator.reconcile(shared("ns/dns-tcp", "k", tcp, "local:app=dns", List.of())).addresses();
    // the same pods (selector), another port: shares
    assertEquals(
        dns,
        allocator
            .reconcile(shared("ns/dns-udp", "k", udp, "local:app=dns", List.of()))
            .addresses());
    // other pods, or Cluster: would draw traffic to nodes without its pods, so not this address
    assertNotEquals(
        dns,
        allocator
            .reconcile(
                shared("ns/other-pods", "k", new Port("TCP", 54), "local:app=web", List.of()))
            .addresses());
    assertNotEquals(
        dns,
        allocator
            .reconcile(shared("ns/cluster", "k", new Port("TCP", 55), null, List.of()))
            .addresses());
    // asked for by address: refused with a reason, not silently moved
    var refused =
        allocator.reconcile(
            shared("ns/asks", "k", new Port("TCP", 56), null, List.of(Ip.format(dns.getFirst()))));
    assertTrue(refused.failed());
    assertTrue(refused.addresses().isEmpty());
    // two Cluster Services share whatever their selectors
    var web =
        allocator
            .reconcile(shared("ns/web-a", "k", new Port("TCP", 80), null, List.of()))
            .addresses();
    assertNotEquals(dns, web);
    assertEquals(
        web,
        allocator
            .reconcile(shared("ns/web-b", "k", new Port("TCP", 81), null, List.of()))
            .addresses());
  }

  /**
   * A Service with {@code ipFamilies} ({@code true} IPv4, {@code false} IPv6) and {@code
   * ipFamilyPolicy} written by its user.
   */
  private static ServiceView explicitFamilies(
      String key, List<String> pools, List<Boolean> families, String policy) {
    return new ServiceView(
        key, true, pools, List.of(), families, policy, true, null, HTTP, List.of());
  }

  @Test
  void dualStackGetsOneAddressPerFamilyInFamilyOrder() {
    var allocator = allocator();
    allocator.upsertPool(
        "v6", new AddressPoolSpec("2001:db8:1::/120", AddressType.SERVICE, null, true));
    var dual = explicitFamilies("t/d", null, List.of(false, true), "RequireDualStack");
    assertEquals(List.of("2001:db8:1::1", "10.0.1.1"), text(allocator.reconcile(dual).addresses()));
    var v6 = explicitFamilies("t/6", null, List.of(false), "SingleStack");
    assertEquals(List.of("2001:db8:1::2"), text(allocator.reconcile(v6).addresses()));
    var v4only = explicitFamilies("t/4", List.of("v6"), List.of(true), "SingleStack");
    assertTrue(allocator.reconcile(v4only).error().startsWith("pool v6 is IPv6"));

    var noV6 = allocator();
    var required = noV6.reconcile(dual);
    assertEquals("no auto-assign IPv6 service AddressPool", required.error());
    var preferred =
        noV6.reconcile(explicitFamilies("t/p", null, List.of(true, false), "PreferDualStack"));
    assertNull(preferred.error());
    assertEquals(List.of("10.0.1.1"), text(preferred.addresses()));
  }

  @Test
  void aPoolBeingDeletedKeepsItsHoldersButHandsOutNothing() {
    var allocator = allocator();
    var first = allocator.reconcile(lb("t/a"));
    allocator.drain("default-lb-pool");
    var again = allocator.reconcile(lb("t/a", null, List.of(), first.addresses()));
    assertEquals(first.addresses(), again.addresses());
    assertEquals("no auto-assign IPv4 service AddressPool", allocator.reconcile(lb("t/b")).error());
    assertEquals(
        "AddressPool default-lb-pool is being deleted",
        allocator.reconcile(lb("t/c", List.of("default-lb-pool"), List.of(), List.of())).error());
  }

  @Test
  void restoreFromStatusAfterARestartNeverDuplicates() {
    var before = allocator();
    var holders = new ArrayList<ServiceView>();
    for (int i = 0; i < 50; i++) {
      var view = lb("t/s" + i);
      holders.add(lb("t/s" + i, null, List.of(), before.reconcile(view).addresses()));
    }
    before.releaseAll("t/s10");

    var after = allocator();
    for (var view : holders) {
      if (!view.key().equals("t/s10")) {
        assertEquals(List.of(), after.restore(view));
      }
    }
    after.resumeAfterRestore();
    var seen = new HashSet<InetAddress>();
    for (var view : holders) {
      if (!view.key().equals("t/s10")) {
        seen.addAll(after.reconcile(view).addresses());
      }
    }
    var fresh = after.reconcile(lb("t/new")).addresses();
    assertFalse(seen.contains(fresh.getFirst()));
    assertEquals(
        List.of("10.0.1.51"),
        text(fresh),
        "continues after the highest held address, not the freed .11");
    // a status that claims an address someone else holds does not get it
    var liar = lb("t/liar", null, List.of(), List.of(Ip.parse("10.0.1.1")));
    assertEquals(List.of(Ip.parse("10.0.1.1")), after.restore(liar));
    assertNotEquals(List.of("10.0.1.1"), text(after.reconcile(liar).addresses()));
  }
}
