package dev.sart.bgp.server;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadFactory;
import java.util.function.BiConsumer;
import java.util.logging.Logger;

/**
 * IPv6 Neighbor Discovery (RFC 4861) on one interface, for an unnumbered BGP neighbour there: we
 * send Router Advertisements, so that the peer learns our link-local address (FRR's zebra learns
 * its unnumbered neighbours from them, as it sends its own), answer Router Solicitations, and learn
 * the peer's link-local address from the Router Advertisements and Solicitations it sends. One
 * platform thread (made by the speaker's thread factory, so in its network namespace) owns a raw
 * ICMPv6 socket bound to the interface.
 *
 * <p>Our advertisement has a Router Lifetime of 0 (RFC 4861 §4.2: not a default router) and no
 * options: it announces our address, nothing else. The hop limit of 255 is set on what we send;
 * what we receive is not checked for it (§6.1.2) — only packets of the interface, from a link-local
 * source, are taken.
 */
final class NeighborDiscovery implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(NeighborDiscovery.class.getName());

  /** How often we advertise once the first few went out (FRR's zebra: 10 s for unnumbered). */
  static final long INTERVAL_MILLIS = 10_000;

  /** The first advertisements go out this often (RFC 4861 §6.2.4 allows faster initial ones). */
  static final long INITIAL_INTERVAL_MILLIS = 1_000;

  private static final int INITIAL_COUNT = 3;

  private static final int AF_INET6 = 10;
  private static final int SOCK_RAW = 3;
  private static final int IPPROTO_IPV6 = 41;
  private static final int IPPROTO_ICMPV6 = 58;
  private static final int SOL_SOCKET = 1;
  private static final int SO_BINDTODEVICE = 25;
  private static final int SO_RCVTIMEO = 20;
  private static final int ICMP6_FILTER = 1;
  private static final int IPV6_UNICAST_HOPS = 16;
  private static final int IPV6_MULTICAST_IF = 17;
  private static final int IPV6_MULTICAST_HOPS = 18;
  private static final int IPV6_MULTICAST_LOOP = 19;
  private static final int IPV6_ADD_MEMBERSHIP = 20;
  static final int ROUTER_SOLICITATION = 133;
  static final int ROUTER_ADVERTISEMENT = 134;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
  private static final MethodHandle SOCKET =
      handle(
          "socket",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT));
  private static final MethodHandle SETSOCKOPT =
      handle(
          "setsockopt",
          FunctionDescriptor.of(
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT));
  private static final MethodHandle SENDTO =
      handle(
          "sendto",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_INT));
  private static final MethodHandle RECVFROM =
      handle(
          "recvfrom",
          FunctionDescriptor.of(
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_INT,
              ValueLayout.ADDRESS,
              ValueLayout.ADDRESS));
  private static final MethodHandle IF_NAMETOINDEX =
      LINKER.downcallHandle(
          LINKER.defaultLookup().find("if_nametoindex").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
  private static final MethodHandle CLOSE =
      LINKER.downcallHandle(
          LINKER.defaultLookup().find("close").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

  private static MethodHandle handle(String name, FunctionDescriptor d) {
    return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d, ERRNO);
  }

  private final String ifname;
  private final BiConsumer<Integer, Inet6Address> learned;
  private final Thread thread;
  private volatile boolean closed;

  /**
   * Starts advertising on {@code ifname} and reports every link-local address heard there (with the
   * interface index) to {@code learned}, on the discovery thread.
   */
  NeighborDiscovery(
      String ifname, ThreadFactory threads, BiConsumer<Integer, Inet6Address> learned) {
    this.ifname = ifname;
    this.learned = learned;
    this.thread = threads.newThread(this::run);
    thread.setName("bgp-nd-" + ifname);
    thread.setDaemon(true);
    thread.start();
  }

  String ifname() {
    return ifname;
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }

  private void run() {
    long retry = 1_000;
    while (!closed) {
      try (Arena arena = Arena.ofConfined()) {
        int index = index(arena, ifname);
        if (index == 0) {
          throw new IllegalStateException("no interface " + ifname);
        }
        int fd = open(arena, index);
        try {
          LOG.info(() -> "event=neighbor-discovery-started interface=" + ifname);
          serve(arena, fd, index);
        } finally {
          int ignored = (int) CLOSE.invokeExact(fd);
        }
        retry = 1_000;
      } catch (Throwable t) {
        if (closed) {
          return;
        }
        String why = t.getMessage();
        LOG.info(
            () ->
                "event=neighbor-discovery-failed interface=" + ifname + " reason=\"" + why + "\"");
        try {
          Thread.sleep(retry);
        } catch (InterruptedException e) {
          return;
        }
        retry = Math.min(retry * 2, 30_000);
      }
    }
  }

  private static int index(Arena arena, String ifname) throws Throwable {
    return (int) IF_NAMETOINDEX.invokeExact(arena.allocateFrom(ifname));
  }

  /** The raw ICMPv6 socket: bound to the interface, RS and RA only, hop limit 255 out. */
  private int open(Arena arena, int index) throws Throwable {
    MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
    int fd = (int) SOCKET.invokeExact(state, AF_INET6, SOCK_RAW, IPPROTO_ICMPV6);
    check(fd, state, "socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6)");
    try {
      MemorySegment name = arena.allocateFrom(ifname);
      set(arena, fd, SOL_SOCKET, SO_BINDTODEVICE, name, (int) name.byteSize(), "SO_BINDTODEVICE");
      // struct icmp6_filter: a set bit blocks the type (RFC 3542 §3.2)
      MemorySegment filter = arena.allocate(32);
      for (int i = 0; i < 8; i++) {
        filter.setAtIndex(ValueLayout.JAVA_INT, i, -1);
      }
      for (int type : new int[] {ROUTER_SOLICITATION, ROUTER_ADVERTISEMENT}) {
        int w = filter.getAtIndex(ValueLayout.JAVA_INT, type >> 5);
        filter.setAtIndex(ValueLayout.JAVA_INT, type >> 5, w & ~(1 << (type & 31)));
      }
      set(arena, fd, IPPROTO_ICMPV6, ICMP6_FILTER, filter, 32, "ICMP6_FILTER");
      // RFC 4861 §6.1.1, §6.1.2: Neighbor Discovery packets are sent with hop limit 255
      setInt(arena, fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 255, "IPV6_MULTICAST_HOPS");
      setInt(arena, fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 255, "IPV6_UNICAST_HOPS");
      setInt(arena, fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, index, "IPV6_MULTICAST_IF");
      setInt(arena, fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0, "IPV6_MULTICAST_LOOP");
      // Router Solicitations go to all-routers (ff02::2), which a host does not listen to
      MemorySegment mreq = arena.allocate(20);
      mreq.set(ValueLayout.JAVA_BYTE, 0, (byte) 0xff);
      mreq.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x02);
      mreq.set(ValueLayout.JAVA_BYTE, 15, (byte) 0x02);
      mreq.set(ValueLayout.JAVA_INT_UNALIGNED, 16, index);
      set(arena, fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, mreq, 20, "IPV6_ADD_MEMBERSHIP ff02::2");
      MemorySegment tv = arena.allocate(16);
      tv.set(ValueLayout.JAVA_LONG, 0, 0);
      tv.set(ValueLayout.JAVA_LONG, 8, 250_000); // 250 ms: the loop looks at its clock and flag
      set(arena, fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16, "SO_RCVTIMEO");
      return fd;
    } catch (Throwable t) {
      int ignored = (int) CLOSE.invokeExact(fd);
      throw t;
    }
  }

  private void serve(Arena arena, int fd, int index) throws Throwable {
    MemorySegment allNodes = sockaddr(arena, (byte) 0x01, index);
    MemorySegment allRouters = sockaddr(arena, (byte) 0x02, index);
    send(arena, fd, solicitation(arena), allRouters); // ask for the peer's advertisement now
    MemorySegment advert = advertisement(arena);
    int sent = 0;
    long next = 0;
    MemorySegment buf = arena.allocate(1500);
    MemorySegment from = arena.allocate(28);
    MemorySegment fromLen = arena.allocate(ValueLayout.JAVA_INT);
    MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
    while (!closed) {
      long now = System.currentTimeMillis();
      if (now >= next) {
        send(arena, fd, advert, allNodes);
        sent++;
        next = now + (sent < INITIAL_COUNT ? INITIAL_INTERVAL_MILLIS : INTERVAL_MILLIS);
      }
      fromLen.set(ValueLayout.JAVA_INT, 0, 28);
      long n = (long) RECVFROM.invokeExact(state, fd, buf, 1500L, 0, from, fromLen);
      if (n < 8) {
        continue; // the timeout (EAGAIN), an interrupted call, or a runt
      }
      int type = Byte.toUnsignedInt(buf.get(ValueLayout.JAVA_BYTE, 0));
      byte[] addr = from.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
      if ((addr[0] & 0xff) != 0xfe || (addr[1] & 0xc0) != 0x80) {
        continue; // RFC 4861 §6.1.2: a router's source is link-local
      }
      Inet6Address peer = scoped(addr, index);
      if (type == ROUTER_SOLICITATION) {
        send(arena, fd, advert, allNodes); // §6.2.6, without the random delay: one peer per link
      }
      learned.accept(index, peer);
    }
  }

  private static Inet6Address scoped(byte[] addr, int index) {
    try {
      return Inet6Address.getByAddress(null, addr, index);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** ff02::{@code last} on the interface. */
  private static MemorySegment sockaddr(Arena arena, byte last, int index) {
    MemorySegment sa = arena.allocate(28);
    sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET6);
    sa.set(ValueLayout.JAVA_BYTE, 8, (byte) 0xff);
    sa.set(ValueLayout.JAVA_BYTE, 9, (byte) 0x02);
    sa.set(ValueLayout.JAVA_BYTE, 23, last);
    sa.set(ValueLayout.JAVA_INT, 24, index);
    return sa;
  }

  /** RFC 4861 §4.1: type 133, code 0, checksum (the kernel's), reserved. */
  private static MemorySegment solicitation(Arena arena) {
    MemorySegment m = arena.allocate(8);
    m.set(ValueLayout.JAVA_BYTE, 0, (byte) ROUTER_SOLICITATION);
    return m;
  }

  /**
   * RFC 4861 §4.2: type 134, code 0, checksum (the kernel's), Cur Hop Limit 0 (unspecified), no
   * flags, Router Lifetime 0 (not a default router), Reachable Time and Retrans Timer 0
   * (unspecified).
   */
  static MemorySegment advertisement(Arena arena) {
    MemorySegment m = arena.allocate(16);
    m.set(ValueLayout.JAVA_BYTE, 0, (byte) ROUTER_ADVERTISEMENT);
    return m;
  }

  private static void send(Arena arena, int fd, MemorySegment message, MemorySegment to)
      throws Throwable {
    MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
    long n = (long) SENDTO.invokeExact(state, fd, message, message.byteSize(), 0, to, 28);
    check((int) n, state, "sendto");
  }

  private static void setInt(Arena arena, int fd, int level, int option, int value, String what)
      throws Throwable {
    MemorySegment v = arena.allocateFrom(ValueLayout.JAVA_INT, value);
    set(arena, fd, level, option, v, 4, what);
  }

  private static void set(
      Arena arena, int fd, int level, int option, MemorySegment v, int len, String what)
      throws Throwable {
    MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
    int rc = (int) SETSOCKOPT.invokeExact(state, fd, level, option, v, len);
    check(rc, state, "setsockopt " + what);
  }

  private static void check(int rc, MemorySegment state, String what) {
    if (rc < 0) {
      int errno =
          (int)
              Linker.Option.captureStateLayout()
                  .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"))
                  .get(state, 0L);
      throw new IllegalStateException(what + ": errno " + errno);
    }
  }

  static {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      // sin6_family is host order; the rest of sockaddr_in6 as written here assumes little endian
      LOG.warning("NeighborDiscovery assumes a little-endian host");
    }
  }
}
