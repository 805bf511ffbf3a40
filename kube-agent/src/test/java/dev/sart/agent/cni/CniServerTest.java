package dev.sart.agent.cni;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.cni.Frame;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A connection that does not carry a sart-cni frame is closed and logged at WARN with why. */
class CniServerTest {
  @TempDir Path dir;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Logger log = Logger.getLogger(CniServer.class.getName());
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          records.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void listen() {
    log.addHandler(capture);
  }

  @AfterEach
  void stop() {
    log.removeHandler(capture);
  }

  /** Sends {@code bytes}, half-closes, and returns how many bytes came back before the close. */
  private static int exchange(Path socket, byte[] bytes) throws IOException {
    try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      c.connect(UnixDomainSocketAddress.of(socket));
      c.write(ByteBuffer.wrap(bytes));
      c.shutdownOutput();
      ByteBuffer in = ByteBuffer.allocate(1024);
      int total = 0;
      try {
        for (int n = c.read(in); n >= 0; n = c.read(in)) {
          total += n;
          in.clear();
        }
      } catch (java.net.SocketException reset) {
        // the server closed with our bytes unread: a reset, which is a close too
      }
      return total;
    }
  }

  private List<String> warnings() {
    return records.stream()
        .filter(r -> r.getLevel() == Level.WARNING)
        .map(LogRecord::getMessage)
        .toList();
  }

  @Test
  void badFramesAreRefusedWithTheirReasonAtWarn() throws Exception {
    Path socket = dir.resolve("sart.sock");
    try (CniServer server = new CniServer(socket, null)) {
      assertEquals(0, exchange(socket, "GET / HTTP/1.1\r\n\r\n".getBytes()));
      await().atMost(Duration.ofSeconds(5)).until(() -> warnings().size() == 1);
      assertEquals(
          "event=cni-frame-rejected endpoint="
              + socket
              + " reason=\"not a sart-cni frame (bad magic)\"",
          warnings().getFirst());

      byte[] whole = Frame.encodeRequest(Map.of("CNI_COMMAND", "ADD"), "{}".getBytes());
      byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 1);
      assertEquals(0, exchange(socket, cut));
      await().atMost(Duration.ofSeconds(5)).until(() -> warnings().size() == 2);
      assertEquals(
          "event=cni-frame-rejected endpoint="
              + socket
              + " reason=\"frame body truncated: 1 of 2 bytes\"",
          warnings().get(1));
    }
  }
}
