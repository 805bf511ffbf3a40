package dev.sart.fib.daemon;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A server stream read as an iterator, like grpc-java's blocking stub gives, but with {@code
 * window} messages asked for ahead instead of one: the blocking stub asks for the next message only
 * once the last was taken, which over the in-process transport (sartd node's FIB and speaker,
 * {@code LocalEndpoints}) lets the server send one message per hand-over between the two threads; a
 * table of 100,000 paths then took 8.4 s to reach the kernel instead of 4.7 over TCP
 * (testbed/perf/LOG.md, 2026-12-01). At most {@code window} messages wait here, so a reader that
 * falls behind still holds the server back (its flow control), as before.
 *
 * <p>{@link #hasNext} throws the stream's error as a {@link io.grpc.StatusRuntimeException}, as the
 * blocking stub's iterator does; it blocks until a message, the end or an error arrives.
 */
final class StreamWindow<T> implements Iterator<T>, ClientResponseObserver<Object, T> {
  private static final Object END = new Object();

  private record Failure(Throwable error) {}

  private final int window;
  private final LinkedBlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
  private volatile ClientCallStreamObserver<Object> call;
  private Object next;
  private int taken;

  StreamWindow(int window) {
    if (window < 2) {
      throw new IllegalArgumentException("window " + window + ": at least 2");
    }
    this.window = window;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<Object> requestStream) {
    call = requestStream;
    requestStream.disableAutoRequestWithInitial(window);
  }

  @Override
  public void onNext(T value) {
    arrived.add(value);
  }

  @Override
  public void onError(Throwable t) {
    arrived.add(new Failure(t));
  }

  @Override
  public void onCompleted() {
    arrived.add(END);
  }

  @Override
  public boolean hasNext() {
    if (next == null) {
      try {
        next = arrived.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        call.cancel("interrupted", e);
        throw Status.CANCELLED.withCause(e).asRuntimeException();
      }
    }
    if (next instanceof Failure f) {
      throw Status.fromThrowable(f.error()).asRuntimeException();
    }
    return next != END;
  }

  @Override
  @SuppressWarnings("unchecked")
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    T v = (T) next;
    next = null;
    // ask for more in halves of the window: the server always has messages to send ahead
    if (++taken >= window / 2) {
      call.request(taken);
      taken = 0;
    }
    return v;
  }
}
