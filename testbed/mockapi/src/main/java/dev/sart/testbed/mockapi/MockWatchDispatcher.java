package dev.sart.testbed.mockapi;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * fabric8's CRUD dispatcher with one defect of its watches (7.8.0) worked around. A watch sends its
 * events from an executor of its own, and each send waits until the server's event loop has written
 * it. When the watching client goes away (a process stopped, its relay closed) the event loop runs
 * the watch's {@code onFailure} (or {@code onClosed}), which waits for that executor to finish; if
 * an event for that watch was queued just before, its send waits for the very event loop that is
 * waiting for it, until {@code VertxMockWebSocket}'s 30 s write timeout. For those 30 s the whole
 * API server answers nobody and sends no watch event ("vert.x-eventloop-thread-0 has been blocked"
 * in {@code WatchEventsListener.onFailure}, then "write did not complete within 30s").
 *
 * <p>It also serves the discovery documents the mock lacks ({@link Discovery}), so that kubectl
 * works against it.
 *
 * <p>Here each watch writes through a queue of its own ({@link QueuedSocket}, one virtual thread):
 * the watch's executor only hands events over, so its end never waits for a write, and the event
 * loop stays free to fail the dead socket's write at once. Events still leave in order; the
 * callbacks still run where fabric8 runs them. A real API server has no such coupling between its
 * watchers.
 */
final class MockWatchDispatcher extends KubernetesCrudDispatcher {
  private final Discovery discovery =
      new Discovery(
          () -> {
            MockResponse r = handleGet("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
            return r.getBody() == null ? null : r.getBody().readUtf8();
          });

  /** GETs of the discovery documents ({@link Discovery}); everything else as fabric8 does. */
  @Override
  public MockResponse dispatch(RecordedRequest request) {
    if ("GET".equals(request.getMethod())) {
      String path = request.getPath();
      int q = path.indexOf('?');
      String doc = discovery.document(q < 0 ? path : path.substring(0, q));
      if (doc != null) {
        return new MockResponse()
            .setResponseCode(200)
            .setHeader("Content-Type", "application/json")
            .setBody(doc);
      }
    }
    return super.dispatch(request);
  }

  @Override
  public MockResponse handleWatch(String path) {
    var response = super.handleWatch(path);
    var listener = response.getWebSocketListener();
    return listener == null ? response : response.withWebSocketUpgrade(new Queued(listener));
  }

  /** The watch's listener, given a {@link QueuedSocket} in place of the server's socket. */
  private static final class Queued extends WebSocketListener {
    private final WebSocketListener watch;
    private QueuedSocket queued;

    Queued(WebSocketListener watch) {
      this.watch = watch;
    }

    private synchronized QueuedSocket of(WebSocket socket) {
      if (queued == null || queued.socket != socket) {
        queued = new QueuedSocket(socket);
      }
      return queued;
    }

    @Override
    public void onBeforeAccept(WebSocket webSocket, Response response) {
      watch.onBeforeAccept(of(webSocket), response);
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
      watch.onOpen(of(webSocket), response);
    }

    @Override
    public void onMessage(WebSocket webSocket, String text) {
      watch.onMessage(of(webSocket), text);
    }

    @Override
    public void onMessage(WebSocket webSocket, byte[] bytes) {
      watch.onMessage(of(webSocket), bytes);
    }

    @Override
    public void onClosing(WebSocket webSocket, int code, String reason) {
      watch.onClosing(of(webSocket), code, reason);
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
      var q = of(webSocket);
      watch.onClosed(q, code, reason);
      q.end();
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable t, Response response) {
      var q = of(webSocket);
      watch.onFailure(q, t, response);
      q.end();
    }
  }

  /** Sends and the close in order on a thread of their own; the caller never waits for a write. */
  private static final class QueuedSocket implements WebSocket {
    private final WebSocket socket;
    private final ExecutorService writes =
        Executors.newSingleThreadExecutor(Thread.ofVirtual().name("mock-watch-write").factory());

    QueuedSocket(WebSocket socket) {
      this.socket = socket;
    }

    @Override
    public RecordedRequest request() {
      return socket.request();
    }

    @Override
    public boolean send(String text) {
      return queue(() -> socket.send(text));
    }

    @Override
    public boolean send(byte[] bytes) {
      return queue(() -> socket.send(bytes));
    }

    @Override
    public boolean close(int code, String reason) {
      boolean queued = queue(() -> socket.close(code, reason));
      end();
      return queued;
    }

    /** Takes nothing more; what is queued is still written (or fails on the closed socket). */
    void end() {
      writes.shutdown();
    }

    private boolean queue(Runnable write) {
      try {
        writes.execute(write);
        return true;
      } catch (RejectedExecutionException e) {
        return false; // ended
      }
    }
  }
}
