package dev.sart.bgp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.proto.v1.AddPeerRequest;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.DeletePeerRequest;
import dev.sart.proto.v1.GetNeighborRequest;
import dev.sart.proto.v1.SetASRequest;
import dev.sart.proto.v1.SetRouterIdRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fabric fields of sart.v1 (issue 28) into the speaker and back out. */
class FabricMappingTest {
  private BgpServer speaker;
  private Server server;
  private ManagedChannel channel;
  private BgpApiGrpc.BgpApiBlockingStub api;

  private static final AddressFamily V4 =
      AddressFamily.newBuilder()
          .setAfi(AddressFamily.Afi.AFI_IP4)
          .setSafi(AddressFamily.Safi.SAFI_UNICAST)
          .build();

  @BeforeEach
  void start() throws Exception {
    speaker = new BgpServer(0);
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name).addService(new BgpApiService(speaker)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    api = BgpApiGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    api.setAS(SetASRequest.newBuilder().setAsn(65001).build());
    api.setRouterId(
        SetRouterIdRequest.newBuilder()
            .setRouterId("192.0.2.1")
            .setClusterId("192.0.2.255")
            .build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
    speaker.close();
  }

  @Test
  void addPathReflectionAndNextHopSelfGoInAndComeBack() throws Exception {
    api.addPeer(
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setAddress("192.0.2.2")
                    .setAsn(65001)
                    .setPassiveOpen(true)
                    .setRouteReflectorClient(true)
                    .setNextHopSelf(true)
                    .setAddPath(
                        dev.sart.proto.v1.AddPath.newBuilder()
                            .addReceive(V4)
                            .addSend(V4)
                            .setSendMax(4)))
            .build());
    PeerConfig c = speaker.peer(InetAddress.getByName("192.0.2.2")).config();
    assertEquals(
        new PeerConfig.AddPath(Set.of(Family.IPV4_UNICAST), Set.of(Family.IPV4_UNICAST), 4),
        c.addPath());
    assertTrue(c.routeReflectorClient() && c.nextHopSelf());
    assertEquals(Ip.parseV4("192.0.2.255"), speaker.clusterId());
    dev.sart.proto.v1.Peer p =
        api.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.2").build()).getPeer();
    assertEquals(4, p.getAddPath().getSendMax());
    assertEquals(java.util.List.of(V4), p.getAddPath().getSendList());
    assertTrue(p.getRouteReflectorClient() && p.getNextHopSelf());
  }

  @Test
  void anUnnumberedPeerIsAddedByInterfaceAndDeletedByIt() {
    api.addPeer(
        AddPeerRequest.newBuilder()
            .setPeer(
                dev.sart.proto.v1.Peer.newBuilder()
                    .setInterface("sartnoif0")
                    .setRemoteAs("external"))
            .build());
    assertEquals(java.util.List.of("sartnoif0"), speaker.interfacePeers());
    StatusRuntimeException bad =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                api.addPeer(
                    AddPeerRequest.newBuilder()
                        .setPeer(
                            dev.sart.proto.v1.Peer.newBuilder()
                                .setInterface("sartnoif1")
                                .setRemoteAs("outside"))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());
    assertTrue(bad.getStatus().getDescription().contains("remote_as"), bad.getMessage());
    api.deletePeer(DeletePeerRequest.newBuilder().setAddr("sartnoif0").build());
    assertEquals(java.util.List.of(), speaker.interfacePeers());
  }
}
