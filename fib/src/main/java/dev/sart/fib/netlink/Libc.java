package dev.sart.fib.netlink;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few libc calls netlink needs, through {@code java.lang.foreign}. Every call captures {@code
 * errno} and a failure becomes a {@link NetlinkException} naming the call; callers that treat some
 * errno as a normal outcome (EINTR, EAGAIN) use the {@code *Raw} variants.
 */
@SuppressWarnings(
    "restricted") // the point of this class; run with --enable-native-access=ALL-UNNAMED
final class Libc {
  static final int SOCK_RAW = 3;
  static final int SOCK_CLOEXEC = 0x80000;
  static final int SOL_SOCKET = 1;
  static final int SO_SNDBUF = 7;
  static final int SO_RCVBUF = 8;
  static final int SO_RCVTIMEO = 20;
  static final int SO_SNDBUFFORCE = 32;
  static final int SO_RCVBUFFORCE = 33;
  static final int O_RDONLY = 0;
  static final int O_CLOEXEC = 0x80000;

  /** linux/sched.h */
  static final int CLONE_NEWNET = 0x40000000;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO =
      CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final ThreadLocal<MemorySegment> STATE =
      ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

  private static final MethodHandle SOCKET =
      call("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle BIND =
      call("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle GETSOCKNAME =
      call("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle SETSOCKOPT =
      call(
          "setsockopt",
          FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle SEND =
      call("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
  private static final MethodHandle RECV =
      call("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
  private static final MethodHandle CLOSE =
      call("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle SETNS =
      call("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  // int open(const char *path, int flags, ...): variadic after the second argument
  private static final MethodHandle OPEN =
      call(
          "open",
          FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
          Linker.Option.firstVariadicArg(2));
  private static final MethodHandle STRERROR =
      LINKER.downcallHandle(
          LINKER.defaultLookup().find("strerror").orElseThrow(),
          FunctionDescriptor.of(ADDRESS, JAVA_INT));

  private Libc() {}

  private static MethodHandle call(String name, FunctionDescriptor fd, Linker.Option... more) {
    Linker.Option[] options = new Linker.Option[more.length + 1];
    options[0] = Linker.Option.captureCallState("errno");
    System.arraycopy(more, 0, options, 1, more.length);
    return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, options);
  }

  /** The errno the last call on this thread captured. */
  static int errno() {
    return (int) ERRNO.get(STATE.get(), 0L);
  }

  static int socket(int domain, int type, int protocol) {
    try {
      return check(
          (int) SOCKET.invokeExact(STATE.get(), domain, type, protocol), "socket(AF_NETLINK)");
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void bind(int fd, MemorySegment addr) {
    try {
      check(
          (int) BIND.invokeExact(STATE.get(), fd, addr, (int) addr.byteSize()), "bind(AF_NETLINK)");
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void getsockname(int fd, MemorySegment addr, MemorySegment len) {
    try {
      check((int) GETSOCKNAME.invokeExact(STATE.get(), fd, addr, len), "getsockname");
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** setsockopt(2); returns -1 and leaves errno readable instead of throwing. */
  static int setsockoptRaw(int fd, int level, int name, MemorySegment value) {
    try {
      return (int)
          SETSOCKOPT.invokeExact(STATE.get(), fd, level, name, value, (int) value.byteSize());
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** send(2); returns -1 and leaves errno readable instead of throwing. */
  static long sendRaw(int fd, MemorySegment buf, long len, int flags) {
    try {
      return (long) SEND.invokeExact(STATE.get(), fd, buf, len, flags);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** recv(2); returns -1 and leaves errno readable instead of throwing. */
  static long recvRaw(int fd, MemorySegment buf, long len, int flags) {
    try {
      return (long) RECV.invokeExact(STATE.get(), fd, buf, len, flags);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void close(int fd) {
    try {
      check((int) CLOSE.invokeExact(STATE.get(), fd), "close");
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** setns(2); throws naming {@code what} when it fails. */
  static void setns(int fd, int nstype, String what) {
    try {
      check((int) SETNS.invokeExact(STATE.get(), fd, nstype), "setns " + what);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** open(2) read-only with O_CLOEXEC; returns the descriptor. */
  static int open(String path) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment cpath = arena.allocateFrom(path);
      return check(
          (int) OPEN.invokeExact(STATE.get(), cpath, O_RDONLY | O_CLOEXEC, 0), "open " + path);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** strerror(3): "File exists". */
  static String strerror(int errno) {
    try {
      MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
      return s.reinterpret(256).getString(0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static int check(int result, String operation) {
    if (result < 0) {
      throw new NetlinkException(operation, errno(), null);
    }
    return result;
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t);
  }
}
