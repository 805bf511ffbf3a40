package dev.sart.agent.ipam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BlockAllocatorTest {
  private static Attachment pod(int i) {
    return new Attachment("c" + i, "eth0");
  }

  private static List<String> addrs(Allocation a) {
    return a.addresses().stream().map(Ip::format).toList();
  }

  @Test
  void ipv4BlocksNeverGiveTheNetworkOrBroadcastAddress() throws Exception {
    BlockAllocator ipam = new BlockAllocator(List.of(Block.parse("p=192.0.2.0/29")), "p");
    List<String> got = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      got.add(addrs(ipam.allocate("p", pod(i))).getFirst());
    }
    assertEquals(
        List.of("192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5", "192.0.2.6"), got);
    assertThrows(IpamException.class, () -> ipam.allocate("p", pod(6)));
    assertFalse(ipam.hasFree("p"));
  }

  @Test
  void aDualStackPodTakesOnePoolPerFamily() throws Exception {
    BlockAllocator ipam =
        new BlockAllocator(
            List.of(
                Block.parse("v4=192.0.2.0/29"),
                Block.parse("v6=2001:db8::/125"),
                Block.parse("v4b=198.51.100.0/29")),
            null);
    Allocation a = ipam.allocate("v4,v6", pod(1));
    assertEquals(List.of("192.0.2.1", "2001:db8::1"), addrs(a));
    assertEquals(a, ipam.allocate("v4,v6", pod(1)), "a repeated ADD gets the same");
    var e = assertThrows(IpamException.class, () -> ipam.allocate("v4,v4b", pod(2)));
    assertTrue(e.getMessage().contains("both give IPv4"), e.getMessage());
    assertTrue(ipam.allocations().stream().noneMatch(x -> x.attachment().equals(pod(2))));
    // the failed request holds nothing (192.0.2.2 is free again; no immediate reuse moves on)
    assertEquals(List.of("192.0.2.3", "2001:db8::2"), addrs(ipam.allocate("v4,v6", pod(2))));
    assertEquals(List.of("192.0.2.4", "2001:db8::3"), addrs(ipam.allocate("v4,v6", pod(4))));

    // after a restart (a new allocator) the allocation comes back from the kernel's record
    BlockAllocator again =
        new BlockAllocator(
            List.of(Block.parse("v4=192.0.2.0/29"), Block.parse("v6=2001:db8::/125")), null);
    again.restore(a);
    assertEquals(List.of("192.0.2.2", "2001:db8::2"), addrs(again.allocate("v4,v6", pod(3))));
    assertEquals(a, again.release(pod(1)).orElseThrow());
    assertTrue(again.hasFree("v4,v6"));
  }

  @Test
  void smallBlocksUseEveryAddress() throws Exception {
    BlockAllocator ipam =
        new BlockAllocator(
            List.of(Block.parse("p=192.0.2.0/31"), Block.parse("p=192.0.2.8/32")), "p");
    Set<String> got = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      got.add(addrs(ipam.allocate("p", pod(i))).getFirst());
    }
    assertEquals(Set.of("192.0.2.0", "192.0.2.1", "192.0.2.8"), got);
  }

  @Test
  void aReleasedAddressComesBackOnlyAfterTheRestOfThePool() throws Exception {
    BlockAllocator ipam =
        new BlockAllocator(
            List.of(Block.parse("p=192.0.2.0/29"), Block.parse("p=192.0.2.16/30")), "p");
    assertEquals(List.of("192.0.2.1"), addrs(ipam.allocate("p", pod(0))));
    ipam.release(pod(0));
    assertEquals(
        List.of("192.0.2.2"), addrs(ipam.allocate("p", pod(1))), "not the address just released");
    List<String> next = new ArrayList<>();
    for (int i = 2; i < 8; i++) {
      next.add(addrs(ipam.allocate("p", pod(i))).getFirst());
    }
    assertEquals(
        List.of("192.0.2.3", "192.0.2.4", "192.0.2.5", "192.0.2.6", "192.0.2.17", "192.0.2.18"),
        next,
        "the other block before the wrap");
    assertEquals(List.of("192.0.2.1"), addrs(ipam.allocate("p", pod(8))), "then the released one");
  }

  @Test
  void anAttachmentKeepsItsAllocationAndPoolsAreSeparate() throws Exception {
    BlockAllocator ipam =
        new BlockAllocator(
            List.of(Block.parse("a=192.0.2.0/30"), Block.parse("b=198.51.100.0/30")), "a");
    Allocation first = ipam.allocate("a", pod(0));
    assertEquals(first, ipam.allocate("a", pod(0)), "a repeated ADD gets the same addresses");
    assertThrows(IpamException.class, () -> ipam.allocate("b", pod(0)));
    assertEquals(List.of("198.51.100.1"), addrs(ipam.allocate("b", pod(1))));
    assertThrows(IpamException.class, () -> ipam.allocate("nope", pod(2)));
    assertEquals(first, ipam.release(pod(0)).orElseThrow());
    assertTrue(ipam.release(pod(0)).isEmpty());
  }

  @Test
  void dualStackPoolsGiveOneAddressPerFamilyAndSkipTheSubnetRouterAnycast() throws Exception {
    BlockAllocator ipam =
        new BlockAllocator(
            List.of(Block.parse("p=192.0.2.0/30"), Block.parse("p=2001:db8::/126")), "p");
    assertEquals(List.of("192.0.2.1", "2001:db8::1"), addrs(ipam.allocate("p", pod(0))));
    assertEquals(List.of("192.0.2.2", "2001:db8::2"), addrs(ipam.allocate("p", pod(1))));
    IpamException full = assertThrows(IpamException.class, () -> ipam.allocate("p", pod(2)));
    assertTrue(full.getMessage().contains("IPv4"), full.getMessage());
    assertEquals(2, ipam.allocations().size(), "a failed allocation gives back what it took");
    ipam.release(pod(0));
    assertEquals(List.of("192.0.2.1", "2001:db8::3"), addrs(ipam.allocate("p", pod(2))));
  }

  @Test
  void restoredAllocationsAreTakenAndTheCursorResumesAfterThem() throws Exception {
    BlockAllocator ipam = new BlockAllocator(List.of(Block.parse("p=192.0.2.0/28")), "p");
    InetAddress five = Ip.parse("192.0.2.5");
    ipam.restore(new Allocation(pod(0), "p", List.of(five)));
    ipam.restore(new Allocation(pod(0), "p", List.of(five)));
    assertThrows(
        IpamException.class,
        () -> ipam.restore(new Allocation(pod(1), "p", List.of(five))),
        "taken twice");
    assertThrows(
        IpamException.class,
        () -> ipam.restore(new Allocation(pod(2), "p", List.of(Ip.parse("203.0.113.1")))));
    assertThrows(
        IpamException.class,
        () -> ipam.restore(new Allocation(pod(3), "q", List.of(Ip.parse("192.0.2.6")))));
    Allocation next = ipam.allocate("p", pod(4));
    assertEquals(List.of("192.0.2.6"), addrs(next));
    assertNotEquals(five, next.addresses().getFirst());
  }

  @Test
  void overlappingBlocksAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new BlockAllocator(
                List.of(Block.parse("a=192.0.2.0/24"), Block.parse("b=192.0.2.16/28")), null));
    assertThrows(IllegalArgumentException.class, () -> Block.parse("192.0.2.0/24"));
  }
}
