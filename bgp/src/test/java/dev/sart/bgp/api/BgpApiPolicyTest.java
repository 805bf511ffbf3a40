package dev.sart.bgp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.server.BgpServer;
import dev.sart.proto.v1.*;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The policy RPCs and the policy fields of AddPeer/GetNeighbor. */
class BgpApiPolicyTest {
  private BgpServer speaker;
  private Server server;
  private ManagedChannel channel;
  private BgpApiGrpc.BgpApiBlockingStub api;

  static final dev.sart.proto.v1.Policy FROM_TOR =
      dev.sart.proto.v1.Policy.newBuilder()
          .setName("from-tor")
          .setDefaultReject(true)
          .addStatements(
              PolicyStatement.newBuilder()
                  .addPrefixList("deny 10.0.0.0/8 le 32")
                  .addPrefixList("any")
                  .setPrefixListName("no-rfc1918")
                  .addCommunities("65000:1")
                  .setSetLocalPref(200)
                  .setSetMed(5)
                  .addAddCommunities("65001:7")
                  .setReplaceCommunities(true)
                  .addAddLargeCommunities("65001:1:2")
                  .setPrependCount(2))
          .addStatements(
              PolicyStatement.newBuilder().addLargeCommunities("65000:0:666").setReject(true))
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
    api.setRouterId(SetRouterIdRequest.newBuilder().setRouterId("192.0.2.1").build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
    speaker.close();
  }

  private static AddPeerRequest peer(String importPolicy, int maxPrefix) {
    return AddPeerRequest.newBuilder()
        .setPeer(
            dev.sart.proto.v1.Peer.newBuilder()
                .setAddress("192.0.2.2")
                .setAsn(65002)
                .setPassiveOpen(true)
                .setImportPolicy(importPolicy)
                .setMaxPrefix(MaxPrefix.newBuilder().setLimit(maxPrefix).setRestartTime(30))
                .setSoftReconfigurationInbound(true))
        .build();
  }

  @Test
  void aPolicyListsAsItWasSetWithItsPrefixListNormalised() {
    api.setPolicy(SetPolicyRequest.newBuilder().setPolicy(FROM_TOR).build());
    dev.sart.proto.v1.Policy listed =
        api.listPolicy(ListPolicyRequest.getDefaultInstance()).getPolicies(0);
    dev.sart.proto.v1.Policy expected =
        FROM_TOR.toBuilder()
            .setStatements(
                0, FROM_TOR.getStatements(0).toBuilder().setPrefixList(1, "permit 0.0.0.0/0 le 32"))
            .build();
    assertEquals(expected, listed);
  }

  @Test
  void aBadPolicyIsRefusedNamingTheStatement() {
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                api.setPolicy(
                    SetPolicyRequest.newBuilder()
                        .setPolicy(
                            dev.sart.proto.v1.Policy.newBuilder()
                                .setName("p")
                                .addStatements(PolicyStatement.newBuilder().addPrefixList("any"))
                                .addStatements(
                                    PolicyStatement.newBuilder().addPrefixList("10.0.0.0/8 ge 4")))
                        .build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("statement 2"), e.getStatus()::getDescription);
    assertEquals(0, api.listPolicy(ListPolicyRequest.getDefaultInstance()).getPoliciesCount());
  }

  @Test
  void aPeerReferringToAnUnknownPolicyIsRefused() {
    StatusRuntimeException e =
        assertThrows(StatusRuntimeException.class, () -> api.addPeer(peer("nope", 0)));
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    assertTrue(
        e.getStatus().getDescription().contains("no policy 'nope'"), e.getStatus()::getDescription);
  }

  @Test
  void getNeighborReportsThePoliciesAndTheLimit() {
    api.setPolicy(SetPolicyRequest.newBuilder().setPolicy(FROM_TOR).build());
    api.addPeer(peer("from-tor", 1000));
    dev.sart.proto.v1.Peer p =
        api.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.2").build()).getPeer();
    assertEquals("from-tor", p.getImportPolicy());
    assertEquals("", p.getExportPolicy());
    assertEquals(
        MaxPrefix.newBuilder().setLimit(1000).setRestartTime(30).build(), p.getMaxPrefix());
    assertTrue(p.getSoftReconfigurationInbound());

    api.setNeighborPolicy(
        SetNeighborPolicyRequest.newBuilder()
            .setAddr("192.0.2.2")
            .setExportPolicy("from-tor")
            .build());
    p = api.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.2").build()).getPeer();
    assertEquals("", p.getImportPolicy());
    assertEquals("from-tor", p.getExportPolicy());
    assertEquals(0, p.getMaxPrefix().getLimit());
  }

  @Test
  void advertisePeerAsIsOffUnlessAskedAndFollowsAddPeerAndSetNeighborPolicy() {
    api.addPeer(peer("", 0));
    GetNeighborRequest get = GetNeighborRequest.newBuilder().setAddr("192.0.2.2").build();
    assertFalse(api.getNeighbor(get).getPeer().getAdvertisePeerAs());
    assertFalse(
        speaker.peer(java.net.InetAddress.ofLiteral("192.0.2.2")).policy().advertisePeerAs());

    api.setNeighborPolicy(
        SetNeighborPolicyRequest.newBuilder()
            .setAddr("192.0.2.2")
            .setAdvertisePeerAs(true)
            .build());
    assertTrue(api.getNeighbor(get).getPeer().getAdvertisePeerAs());
    assertTrue(
        speaker.peer(java.net.InetAddress.ofLiteral("192.0.2.2")).policy().advertisePeerAs());
    assertTrue(
        api.listNeighbor(ListNeighborRequest.getDefaultInstance())
            .getPeers(0)
            .getAdvertisePeerAs());

    api.deletePeer(DeletePeerRequest.newBuilder().setAddr("192.0.2.2").build());
    AddPeerRequest add = peer("", 0);
    api.addPeer(
        add.toBuilder().setPeer(add.getPeer().toBuilder().setAdvertisePeerAs(true)).build());
    assertTrue(api.getNeighbor(get).getPeer().getAdvertisePeerAs());
    // SetNeighborPolicy sets the whole policy: leaving the field out turns it off again.
    api.setNeighborPolicy(SetNeighborPolicyRequest.newBuilder().setAddr("192.0.2.2").build());
    assertFalse(api.getNeighbor(get).getPeer().getAdvertisePeerAs());
  }

  @Test
  void aPolicyInUseCannotBeDeletedAndAnUnknownOneIsNotFound() {
    api.setPolicy(SetPolicyRequest.newBuilder().setPolicy(FROM_TOR).build());
    api.addPeer(peer("from-tor", 0));
    StatusRuntimeException inUse =
        assertThrows(
            StatusRuntimeException.class,
            () -> api.deletePolicy(DeletePolicyRequest.newBuilder().setName("from-tor").build()));
    assertEquals(Status.Code.FAILED_PRECONDITION, inUse.getStatus().getCode());
    StatusRuntimeException unknown =
        assertThrows(
            StatusRuntimeException.class,
            () -> api.deletePolicy(DeletePolicyRequest.newBuilder().setName("other").build()));
    assertEquals(Status.Code.NOT_FOUND, unknown.getStatus().getCode());
    StatusRuntimeException noPeer =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                api.setNeighborPolicy(
                    SetNeighborPolicyRequest.newBuilder().setAddr("192.0.2.9").build()));
    assertEquals(Status.Code.NOT_FOUND, noPeer.getStatus().getCode());
  }

  @Test
  void redefiningAPolicyHandsItToThePeersUsingIt() {
    api.setPolicy(SetPolicyRequest.newBuilder().setPolicy(FROM_TOR).build());
    api.addPeer(peer("from-tor", 0));
    api.setPolicy(
        SetPolicyRequest.newBuilder()
            .setPolicy(FROM_TOR.toBuilder().setDefaultReject(false))
            .build());
    assertTrue(
        speaker
            .peer(java.net.InetAddress.ofLiteral("192.0.2.2"))
            .policy()
            .importPolicy()
            .defaultAccept());
  }
}
