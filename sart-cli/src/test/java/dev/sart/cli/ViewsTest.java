package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sart.proto.v1.Peer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code sart bgp neighbor get} and {@code sart bgp global rib get} show of fields that the
 * speaker sets only while a session is up.
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

  @Test
  void aPathsAddPathIdentifierIsShownOnlyWhenItCameWithOne() {
    dev.sart.proto.v1.Path second =
        dev.sart.proto.v1.Path.newBuilder()
            .setNlri("203.0.113.0/24")
            .setPeerAddr("192.0.2.2")
            .setPeerAsn(65020)
            .setPathId(2)
            .build();
    assertEquals(2L, Views.path(second).get("pathId"));
    assertEquals("192.0.2.2 #2", BgpCommands.from(second));

    dev.sart.proto.v1.Path plain = second.toBuilder().setPathId(0).build();
    assertFalse(Views.path(plain).containsKey("pathId"), "sart's JSON unchanged without ADD-PATH");
    assertEquals("192.0.2.2", BgpCommands.from(plain));
    assertEquals("local", BgpCommands.from(plain.toBuilder().clearPeerAddr().build()));
  }
}
