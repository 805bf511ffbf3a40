package dev.sart.testbed;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Platform threads that live in a node's network namespace: each enters it with setns(2) before
 * running, so sockets it opens (a speaker's listener, its connections) belong to the node. For
 * in-process tests of code that opens sockets; other threads of the JVM are not affected.
 */
public final class NamespaceThreads {
  private static final int O_RDONLY = 0;
  private static final int CLONE_NEWNET = 0x40000000;
  private static final Linker LINKER = Linker.nativeLinker();
  private static final MethodHandle OPEN =
      LINKER.downcallHandle(
          LINKER.defaultLookup().find("open").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
  private static final MethodHandle SETNS =
      LINKER.downcallHandle(
          LINKER.defaultLookup().find("setns").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  private static final MethodHandle CLOSE =
      LINKER.downcallHandle(
          LINKER.defaultLookup().find("close").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

  private NamespaceThreads() {}

  /** Daemon platform threads named {@code prefix-N} inside {@code node}'s namespace. */
  public static ThreadFactory factory(Node node, String prefix) {
    String netns = node.netns();
    AtomicInteger n = new AtomicInteger();
    return r ->
        Thread.ofPlatform()
            .daemon()
            .name(prefix + "-" + n.getAndIncrement())
            .unstarted(
                () -> {
                  enter(netns);
                  r.run();
                });
  }

  /** Moves the calling thread into the named namespace (under /var/run/netns). */
  public static void enter(String netns) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment path = arena.allocateFrom("/var/run/netns/" + netns);
      int fd = (int) OPEN.invokeExact(path, O_RDONLY);
      if (fd < 0) {
        throw new IllegalStateException("cannot open namespace " + netns);
      }
      try {
        if ((int) SETNS.invokeExact(fd, CLONE_NEWNET) != 0) {
          throw new IllegalStateException("setns into " + netns + " failed");
        }
      } finally {
        int ignored = (int) CLOSE.invokeExact(fd);
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("entering namespace " + netns, t);
    }
  }
}
