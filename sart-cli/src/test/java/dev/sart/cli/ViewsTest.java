package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sart.proto.v1.Peer;
import java.util.List;
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

  @Test
  void theFabricFieldsAreShownOnlyWhenSet() {
    Peer plain = Peer.newBuilder().setAddress("192.0.2.6").setAsn(65002).build();
    Map<String, Object> m = Views.peer(plain);
    for (String k :
        List.of(
            "addPath",
            "routeReflectorClient",
            "nextHopSelf",
            "interface",
            "remoteAs",
            "gracefulRestart")) {
      assertFalse(m.containsKey(k), k);
    }
    // the speaker reports its graceful restart settings always; shown when not the defaults
    assertFalse(
        Views.peer(
                plain.toBuilder()
                    .setGracefulRestart(
                        dev.sart.proto.v1.GracefulRestart.newBuilder().setRestartTime(120))
                    .build())
            .containsKey("gracefulRestart"));
    assertEquals(
        Map.of("helper", true, "restartTime", 120, "notification", true),
        Views.peer(
                plain.toBuilder()
                    .setGracefulRestart(
                        dev.sart.proto.v1.GracefulRestart.newBuilder().setNotification(true))
                    .build())
            .get("gracefulRestart"));
    assertEquals("192.0.2.6", Views.neighbor(plain));

    dev.sart.proto.v1.AddressFamily v4 =
        dev.sart.proto.v1.AddressFamily.newBuilder()
            .setAfi(dev.sart.proto.v1.AddressFamily.Afi.AFI_IP4)
            .setSafi(dev.sart.proto.v1.AddressFamily.Safi.SAFI_UNICAST)
            .build();
    Peer fabric =
        Peer.newBuilder()
            .setAddress("fe80::2%3")
            .setAsn(65010)
            .setInterface("eth1")
            .setRemoteAs("external")
            .setRouteReflectorClient(true)
            .setNextHopSelf(true)
            .setAddPath(
                dev.sart.proto.v1.AddPath.newBuilder().addReceive(v4).addSend(v4).setSendMax(2))
            .build();
    Map<String, Object> f = Views.peer(fabric);
    assertEquals("eth1", f.get("interface"));
    assertEquals("external", f.get("remoteAs"));
    assertEquals(true, f.get("routeReflectorClient"));
    assertEquals(true, f.get("nextHopSelf"));
    assertEquals(
        Map.of(
            "receive", List.of(Views.family(v4)), "send", List.of(Views.family(v4)), "sendMax", 2L),
        f.get("addPath"));
    assertEquals("eth1 fe80::2%3", Views.neighbor(fabric));
    assertEquals("eth1", Views.neighbor(fabric.toBuilder().clearAddress().build()));
  }

  @Test
  void aClusterIdIsShownOnlyWhenItIsNotTheRouterId() {
    dev.sart.proto.v1.BgpInfo i =
        dev.sart.proto.v1.BgpInfo.newBuilder()
            .setRouterId("192.0.2.1")
            .setClusterId("192.0.2.1")
            .build();
    assertFalse(BgpCommands.ownClusterId(i));
    assertFalse(BgpCommands.ownClusterId(i.toBuilder().clearClusterId().build()));
    org.junit.jupiter.api.Assertions.assertTrue(
        BgpCommands.ownClusterId(i.toBuilder().setClusterId("192.0.2.100").build()));
  }
}
