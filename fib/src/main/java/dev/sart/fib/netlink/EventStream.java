package dev.sart.fib.netlink;

import dev.sart.fib.netlink.NetlinkEvent.AddressEvent;
import dev.sart.fib.netlink.NetlinkEvent.Change;
import dev.sart.fib.netlink.NetlinkEvent.LinkEvent;
import dev.sart.fib.netlink.NetlinkEvent.NeighborEvent;
import dev.sart.fib.netlink.NetlinkEvent.Overrun;
import dev.sart.fib.netlink.NetlinkEvent.RouteEvent;
import dev.sart.fib.netlink.NetlinkEvent.RuleEvent;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Typed events from rtnetlink multicast groups: a socket that joined them, read either by {@link
 * #poll} (from one thread) or by a dedicated platform thread calling a listener ({@link #listen}).
 * The socket lives in the namespace it was opened in.
 *
 * <pre>{@code
 * try (EventStream events = EventStream.open(ns, Set.of(EventGroup.IPV4_ROUTE, EventGroup.LINK))) {
 *   events.listen(e -> { if (e instanceof RouteEvent r) ... });
 *   ...
 * }
 * }</pre>
 */
public final class EventStream implements AutoCloseable {
  /** How long one receive waits, so a listener notices {@link #close} soon. */
  private static final Duration TICK = Duration.ofMillis(100);

  private final NativeTransport transport;
  private final Deque<NetlinkEvent> pending = new ArrayDeque<>();

  /** Held while reading the socket, so that {@link #close} never closes it under a receive. */
  private final ReentrantLock reading = new ReentrantLock();

  private volatile boolean closed;
  private Thread listener;

  private EventStream(NativeTransport transport) {
    this.transport = transport;
  }

  /** Joins {@code groups} in the calling thread's namespace. */
  public static EventStream open(Set<EventGroup> groups) {
    NativeTransport t = NativeTransport.open();
    try {
      for (EventGroup g : groups) {
        t.join(g.group());
      }
      t.receiveTimeout(TICK);
      return new EventStream(t);
    } catch (RuntimeException e) {
      t.close();
      throw e;
    }
  }

  /** Joins {@code groups} in {@code ns} (the socket is opened inside it, see {@link Netns#run}). */
  public static EventStream open(Netns ns, Set<EventGroup> groups) {
    return ns.run(() -> open(groups));
  }

  /**
   * The next event, waiting up to {@code timeout}; null when none came. Only one thread may poll,
   * and not while a listener runs.
   */
  public NetlinkEvent poll(Duration timeout) {
    reading.lock();
    try {
      return next(timeout);
    } finally {
      reading.unlock();
    }
  }

  private NetlinkEvent next(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (pending.isEmpty() && !closed) {
      ByteBuffer d;
      try {
        d = transport.receive();
      } catch (NetlinkException e) {
        if (e.errno() != Errno.ENOBUFS) {
          throw e;
        }
        pending.add(new Overrun());
        break;
      }
      if (d != null) {
        for (Message m : Message.parseAll(d)) {
          NetlinkEvent ev = decode(m);
          if (ev != null) {
            pending.add(ev);
          }
        }
      } else if (System.nanoTime() - deadline >= 0) {
        break;
      }
    }
    return pending.poll();
  }

  /**
   * Calls {@code consumer} with every event, in order, on a dedicated platform thread until {@link
   * #close}. An exception from the consumer ends the thread.
   */
  public synchronized void listen(Consumer<NetlinkEvent> consumer) {
    if (listener != null) {
      throw new IllegalStateException("a listener runs already");
    }
    listener =
        Thread.ofPlatform()
            .name("netlink events")
            .daemon()
            .start(
                () -> {
                  while (!closed) {
                    NetlinkEvent e = poll(TICK);
                    if (e != null && !closed) {
                      consumer.accept(e);
                    }
                  }
                });
  }

  /** The event a multicast message announces, or null for one this library does not model. */
  static NetlinkEvent decode(Message m) {
    return switch (m.type()) {
      case Rtnl.RTM_NEWLINK, Rtnl.RTM_DELLINK ->
          new LinkEvent(change(m, Rtnl.RTM_DELLINK), LinkCodec.parse(m));
      case Rtnl.RTM_NEWADDR, Rtnl.RTM_DELADDR ->
          new AddressEvent(change(m, Rtnl.RTM_DELADDR), AddressCodec.parse(m));
      case Rtnl.RTM_NEWROUTE, Rtnl.RTM_DELROUTE -> {
        // cached clones (IPv6 exceptions) are not routes of a table
        boolean cloned = (m.payload().getInt(8) & Rtnl.RTM_F_CLONED) != 0;
        Route r = cloned ? null : RouteCodec.parse(m);
        yield r == null ? null : new RouteEvent(change(m, Rtnl.RTM_DELROUTE), r);
      }
      case Rtnl.RTM_NEWNEIGH, Rtnl.RTM_DELNEIGH -> {
        Neighbor n = Neighbors.parse(m);
        yield n == null ? null : new NeighborEvent(change(m, Rtnl.RTM_DELNEIGH), n);
      }
      case Rtnl.RTM_NEWRULE, Rtnl.RTM_DELRULE -> {
        Rule r = Rules.parse(m);
        yield r == null ? null : new RuleEvent(change(m, Rtnl.RTM_DELRULE), r);
      }
      default -> null;
    };
  }

  private static Change change(Message m, int deleteType) {
    return m.type() == deleteType ? Change.DELETE : Change.NEW;
  }

  /**
   * Stops the listener (waiting for it unless called from it) and closes the socket; a {@link
   * #poll} running in another thread returns within a tick.
   */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      t = listener;
    }
    reading.lock();
    try {
      transport.close();
    } finally {
      reading.unlock();
    }
    if (t != null && t != Thread.currentThread()) {
      boolean interrupted = false;
      while (t.isAlive()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
