package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the speaker calls its peer-state listeners (issue 23 §4: no lock held across components). */
class PeerStateListenersTest {
  private final BgpServer server = new BgpServer(0);

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aListenerIsCalledWithNoLockOfTheSpeakerHeld() throws Exception {
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    // a listener that waits for another thread adding a subscriber (a watch's queue lock stands
    // for such a wait): with a lock of the speaker held around the call, it would wait forever
    CompletableFuture<Boolean> otherAdded = new CompletableFuture<>();
    server.addListener(
        (peer, from, to) -> {
          if (otherAdded.isDone()) {
            return;
          }
          CompletableFuture<Void> add =
              CompletableFuture.runAsync(
                  () -> server.addListener((p, f, t) -> {}, p -> {}),
                  r -> Thread.ofVirtual().start(r));
          try {
            add.get(5, TimeUnit.SECONDS);
            otherAdded.complete(true);
          } catch (Exception e) {
            otherAdded.complete(false);
          }
        });
    server.addPeer(
        PeerConfig.builder(InetAddress.getByName("192.0.2.2"), 65002).passive(true).build());
    await().atMost(Duration.ofSeconds(20)).until(otherAdded::isDone);
    assertTrue(otherAdded.join(), "another thread could not add a listener during a callback");
  }
}
