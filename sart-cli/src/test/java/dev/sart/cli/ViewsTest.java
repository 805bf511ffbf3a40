package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sart.proto.v1.Peer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code sart bgp neighbor get} shows of fields that the speaker sets only while a session is
 * up.
 */
class ViewsTest {
  @Test
  void theUpdateGroupIsShownOnlyForASessionInOne() {
    Peer grouped =
        Peer.newBuilder()
            .setAddress("192.0.2.6")
            .setAsn(65002)
            .setState(Peer.State.ESTABLISHED)
            .setUpdateGroup(3)
            .setUpdateGroupMembers(10)
            .build();
    assertEquals(Map.of("id", 3L, "members", 10L), Views.peer(grouped).get("updateGroup"));

    Peer alone = grouped.toBuilder().setUpdateGroup(0).setUpdateGroupMembers(0).build();
    assertFalse(Views.peer(alone).containsKey("updateGroup"), "a session on its own Adj-RIB-Out");
  }

  @Test
  void theBfdSessionIsShownOnlyForAPeerWithBfd() {
    Peer withBfd =
        Peer.newBuilder()
            .setAddress("192.0.2.6")
            .setAsn(65002)
            .setBfd(
                dev.sart.proto.v1.Bfd.newBuilder()
                    .setMinTx(100)
                    .setMinRx(100)
                    .setMultiplier(3)
                    .setState("up")
                    .setRemoteState("up")
                    .setDetectionTimeMs(300))
            .build();
    @SuppressWarnings("unchecked")
    Map<String, Object> bfd = (Map<String, Object>) Views.peer(withBfd).get("bfd");
    assertEquals("up", bfd.get("state"));
    assertEquals(300, bfd.get("detectionTime"));
    assertEquals(3, bfd.get("multiplier"));
    assertFalse(Views.peer(withBfd.toBuilder().clearBfd().build()).containsKey("bfd"));
  }
}
