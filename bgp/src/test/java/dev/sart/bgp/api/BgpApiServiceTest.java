package dev.sart.bgp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import dev.sart.bgp.server.BgpServer;
import dev.sart.proto.v1.*;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The API's semantics, sart's quirks fixed, and the streaming watches. */
class BgpApiServiceTest {
  private BgpServer speaker;
  private Server server;
  private ManagedChannel channel;
  private BgpApiGrpc.BgpApiBlockingStub api;

  @BeforeEach
  void start() throws Exception {
    speaker = new BgpServer(0);
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name).addService(new BgpApiService(speaker)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    api = BgpApiGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    api.setAS(SetASRequest.newBuilder().setAsn(65001).build());
    api.setRouterId(SetRouterIdRequest.newBuilder().setRouterId("192.0.2.1").build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
    speaker.close();
  }

  private static AddPathRequest add(String prefix, Any... attrs) {
    AddPathRequest.Builder b = AddPathRequest.newBuilder().addPrefixes(prefix);
    for (Any a : attrs) {
      b.addAttributes(a);
    }
    return b.build();
  }

  @Test
  void watchPathSendsTheTableThenEveryChange() {
    api.addPath(add("203.0.113.0/24"));
    Iterator<PathEvent> events =
        BgpApiGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .watchPath(WatchPathRequest.getDefaultInstance());
    PathEvent first = events.next();
    assertTrue(first.getInitial());
    assertEquals("203.0.113.0/24", first.getPrefix());
    assertTrue(events.next().getEndOfInitial());
    api.addPath(
        add("198.51.100.0/24", Any.pack(MultiExitDiscAttribute.newBuilder().setValue(5).build())));
    PathEvent added = events.next();
    assertEquals("198.51.100.0/24", added.getPrefix());
    assertEquals(5, added.getSelected(0).getMed());
    assertTrue(added.getSelected(0).getBest());
    api.deletePath(DeletePathRequest.newBuilder().addPrefixes("203.0.113.0/24").build());
    PathEvent gone = events.next();
    assertEquals("203.0.113.0/24", gone.getPrefix());
    assertEquals(0, gone.getSelectedCount());
  }

  @Test
  void watchPeerStateReportsTransitions() {
    Iterator<PeerStateEvent> events =
        BgpApiGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .watchPeerState(WatchPeerStateRequest.getDefaultInstance());
    api.addPeer(
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setAddress("192.0.2.2")
                    .setAsn(65002)
                    .setPassiveOpen(true))
            .build());
    // the subscription may start before the peer exists, while it is still Idle, or after it went
    // Active: the snapshot and the changes together always end with the peer Active
    PeerStateEvent e = events.next();
    assertEquals("192.0.2.2", e.getPeer().getAddress());
    if (e.getPeer().getState() == dev.sart.proto.v1.Peer.State.IDLE) {
      e = events.next();
      assertEquals(dev.sart.proto.v1.Peer.State.IDLE, e.getPrevious());
    }
    assertEquals(dev.sart.proto.v1.Peer.State.ACTIVE, e.getPeer().getState());
    api.deletePeer(DeletePeerRequest.newBuilder().setAddr("192.0.2.2").build());
    PeerStateEvent stopped = events.next();
    while (stopped.getPeer().getState() == dev.sart.proto.v1.Peer.State.ACTIVE) {
      stopped = events.next();
    }
    assertEquals(dev.sart.proto.v1.Peer.State.ACTIVE, stopped.getPrevious());
    assertEquals(dev.sart.proto.v1.Peer.State.IDLE, stopped.getPeer().getState());
  }

  @Test
  void gracefulRestartSettingsGoInAndComeBack() throws Exception {
    api.addPeer(
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setAddress("192.0.2.2")
                    .setAsn(65002)
                    .setPassiveOpen(true)
                    .setGracefulRestart(
                        dev.sart.proto.v1.GracefulRestart.newBuilder()
                            .setHelperDisabled(true)
                            .setRestartTime(30)
                            .setNotification(true)))
            .build());
    api.addPeer(
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setAddress("192.0.2.3")
                    .setAsn(65003)
                    .setPassiveOpen(true))
            .build());
    assertEquals(
        new dev.sart.bgp.peer.PeerConfig.GracefulRestart(
            false, java.time.Duration.ofSeconds(30), true),
        speaker.peer(java.net.InetAddress.getByName("192.0.2.2")).config().gracefulRestart());
    assertEquals(
        dev.sart.bgp.peer.PeerConfig.GracefulRestart.DEFAULT,
        speaker.peer(java.net.InetAddress.getByName("192.0.2.3")).config().gracefulRestart());
    var reported =
        api.getNeighbor(
                dev.sart.proto.v1.GetNeighborRequest.newBuilder().setAddr("192.0.2.2").build())
            .getPeer()
            .getGracefulRestart();
    assertTrue(reported.getHelperDisabled());
    assertEquals(30, reported.getRestartTime());
    assertTrue(reported.getNotification());
  }

  @Test
  void addingAPeerTwiceIsAlreadyExistsAndAMissingOneNotFound() {
    AddPeerRequest req =
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setAddress("192.0.2.2")
                    .setAsn(65002)
                    .setPassiveOpen(true))
            .build();
    api.addPeer(req);
    assertEquals(
        Status.Code.ALREADY_EXISTS,
        assertThrows(StatusRuntimeException.class, () -> api.addPeer(req)).getStatus().getCode());
    assertEquals(
        Status.Code.NOT_FOUND,
        assertThrows(
                StatusRuntimeException.class,
                () -> api.deletePeer(DeletePeerRequest.newBuilder().setAddr("192.0.2.9").build()))
            .getStatus()
            .getCode());
  }

  @Test
  void badPeerSettingsAreInvalidArguments() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                api.addPeer(
                    AddPeerRequest.newBuilder()
                        .setPeer(
                            dev.sart.proto.v1.Peer.newBuilder()
                                .setAddress("192.0.2.2")
                                .setAsn(65002)
                                .setHoldTime(2))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("hold time"), e.getStatus().getDescription());
  }

  @Test
  void clearBgpInfoForgetsPeersPathsAndIdentity() {
    api.addPeer(
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setAddress("192.0.2.2")
                    .setAsn(65002)
                    .setPassiveOpen(true))
            .build());
    api.addPath(add("203.0.113.0/24"));
    api.clearBgpInfo(ClearBgpInfoRequest.getDefaultInstance());
    assertEquals(0, api.listNeighbor(ListNeighborRequest.getDefaultInstance()).getPeersCount());
    assertEquals(0, api.getPath(GetPathRequest.getDefaultInstance()).getPathsCount());
    assertEquals(0, api.getBgpInfo(GetBgpInfoRequest.getDefaultInstance()).getInfo().getAsn());
  }
}
