package dev.sart.bgp.peer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The socket options Netty does not expose: the TTL / hop limit we send and the minimum we accept
 * (RFC 5082 GTSM), set with setsockopt(2) on the channel's file descriptor.
 */
public final class Sockets {
  private static final int IPPROTO_IP = 0;
  private static final int IPPROTO_IPV6 = 41;
  private static final int IP_TTL = 2;
  private static final int IP_MINTTL = 21;
  private static final int IPV6_UNICAST_HOPS = 16;
  private static final int IPV6_MINHOPCOUNT = 73;

  private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
  private static final MethodHandle SETSOCKOPT =
      Linker.nativeLinker()
          .downcallHandle(
              Linker.nativeLinker().defaultLookup().find("setsockopt").orElseThrow(),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT,
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_INT),
              ERRNO);
  private static final VarHandle ERRNO_HANDLE =
      Linker.Option.captureStateLayout()
          .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

  private static final int SOL_SOCKET = 1;
  private static final int SO_ATTACH_FILTER = 26;

  private Sockets() {}

  /**
   * Attaches (or replaces) a classic BPF socket filter: {@code program} holds the {@code struct
   * sock_filter} array, 8 octets per instruction in host order.
   */
  public static void attachFilter(int fd, java.nio.ByteBuffer program) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment insns = arena.allocate(program.remaining(), 8);
      insns.copyFrom(MemorySegment.ofBuffer(program));
      MemorySegment fprog =
          arena.allocate(16, 8); // struct sock_fprog { unsigned short len; sock_filter *filter; }
      fprog.set(ValueLayout.JAVA_SHORT, 0, (short) (program.remaining() / 8));
      fprog.set(ValueLayout.ADDRESS, 8, insns);
      MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
      int rc = (int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_ATTACH_FILTER, fprog, 16);
      if (rc != 0) {
        int errno = (int) ERRNO_HANDLE.get(state, 0L);
        throw new IllegalStateException(
            "setsockopt SO_ATTACH_FILTER on fd " + fd + ": errno " + errno);
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("setsockopt SO_ATTACH_FILTER", t);
    }
  }

  /** The TTL (IPv4) or hop limit (IPv6) of the packets we send. */
  public static void setTtl(int fd, boolean ipv6, int ttl) {
    set(fd, ipv6 ? IPPROTO_IPV6 : IPPROTO_IP, ipv6 ? IPV6_UNICAST_HOPS : IP_TTL, ttl, "TTL");
  }

  /** RFC 5082 §3: drop segments that arrive with a TTL / hop limit below {@code min}. */
  public static void setMinTtl(int fd, boolean ipv6, int min) {
    set(
        fd,
        ipv6 ? IPPROTO_IPV6 : IPPROTO_IP,
        ipv6 ? IPV6_MINHOPCOUNT : IP_MINTTL,
        min,
        "minimum TTL");
  }

  private static void set(int fd, int level, int option, int value, String what) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment v = arena.allocateFrom(ValueLayout.JAVA_INT, value);
      MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
      int rc = (int) SETSOCKOPT.invokeExact(state, fd, level, option, v, 4);
      if (rc != 0) {
        int errno = (int) ERRNO_HANDLE.get(state, 0L);
        throw new IllegalStateException(
            "setsockopt " + what + " " + value + " on fd " + fd + ": errno " + errno);
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("setsockopt " + what, t);
    }
  }
}
