package dev.sart.fib.netlink;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A network namespace, held open by a file descriptor (a bind mount such as /var/run/netns/NAME, or
 * /proc/PID/ns/net).
 *
 * <p>{@link #run} executes a task inside it on a fresh platform thread that enters the namespace
 * with setns(2) and ends with the task: the thread is never reused, so no other work ever runs in
 * the wrong namespace, and the calling thread is unaffected. Sockets opened by the task stay in the
 * namespace afterwards, whichever thread uses them (see {@link Netlink#open(Netns)}).
 */
public final class Netns implements AutoCloseable {
  /** Where {@code ip netns add NAME} mounts named namespaces. */
  public static final Path NAMED = Path.of("/var/run/netns");

  private final Path path;
  private final int fd;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Netns(Path path, int fd) {
    this.path = path;
    this.fd = fd;
  }

  /** Opens the namespace at {@code path} (/var/run/netns/NAME, /proc/PID/ns/net). */
  public static Netns open(Path path) {
    return new Netns(path, Libc.open(path.toString()));
  }

  /** Opens the named namespace /var/run/netns/{@code name}. */
  public static Netns named(String name) {
    if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("not a namespace name: " + name);
    }
    return open(NAMED.resolve(name));
  }

  /** Opens the namespace of the calling thread. */
  public static Netns current() {
    return open(Path.of("/proc/thread-self/ns/net"));
  }

  /** The descriptor, for IFLA_NET_NS_FD; valid until {@link #close}. */
  public int fd() {
    if (closed.get()) {
      throw new IllegalStateException(path + " is closed");
    }
    return fd;
  }

  public Path path() {
    return path;
  }

  /** A task that may throw {@code E}. */
  @FunctionalInterface
  public interface Task<T, E extends Exception> {
    T call() throws E;
  }

  /**
   * Runs {@code task} inside this namespace on a fresh platform thread; see {@link #run(Netns,
   * Task)}.
   */
  public <T, E extends Exception> T run(Task<T, E> task) throws E {
    return run(this, task);
  }

  /**
   * Runs {@code task} on a new platform thread that first enters {@code ns} with setns(2), waits
   * for it, and returns its result or throws what it threw. The thread ends with the task.
   */
  @SuppressWarnings("unchecked")
  public static <T, E extends Exception> T run(Netns ns, Task<T, E> task) throws E {
    int fd = ns.fd();
    Object[] result = new Object[1];
    Throwable[] failure = new Throwable[1];
    Thread t =
        Thread.ofPlatform()
            .name("netns " + ns.path)
            .daemon()
            .unstarted(
                () -> {
                  try {
                    Libc.setns(fd, Libc.CLONE_NEWNET, ns.path.toString());
                    result[0] = task.call();
                  } catch (Throwable e) {
                    failure[0] = e;
                  }
                });
    t.start();
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure[0] != null) {
      Throwable f = failure[0];
      if (f instanceof RuntimeException r) {
        throw r;
      }
      if (f instanceof Error err) {
        throw err;
      }
      throw (E) f;
    }
    return (T) result[0];
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      Libc.close(fd);
    }
  }

  @Override
  public String toString() {
    return "netns " + path;
  }
}
