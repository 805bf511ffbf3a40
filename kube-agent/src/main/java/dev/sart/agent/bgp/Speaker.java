package dev.sart.agent.bgp;

import com.google.protobuf.Any;
import dev.sart.crds.AdvertisementAttrs;
import dev.sart.proto.LocalEndpoints;
import dev.sart.proto.v1.AddPathRequest;
import dev.sart.proto.v1.AddPeerRequest;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.BgpInfo;
import dev.sart.proto.v1.CommunitiesAttribute;
import dev.sart.proto.v1.ConfigureMultiPathRequest;
import dev.sart.proto.v1.DeletePathRequest;
import dev.sart.proto.v1.DeletePeerRequest;
import dev.sart.proto.v1.DeletePolicyRequest;
import dev.sart.proto.v1.GetBgpInfoRequest;
import dev.sart.proto.v1.GetPathRequest;
import dev.sart.proto.v1.LargeCommunitiesAttribute;
import dev.sart.proto.v1.LargeCommunity;
import dev.sart.proto.v1.ListNeighborRequest;
import dev.sart.proto.v1.ListPolicyRequest;
import dev.sart.proto.v1.LocalPrefAttribute;
import dev.sart.proto.v1.MultiExitDiscAttribute;
import dev.sart.proto.v1.Peer;
import dev.sart.proto.v1.PeerStateEvent;
import dev.sart.proto.v1.Policy;
import dev.sart.proto.v1.SetASRequest;
import dev.sart.proto.v1.SetNeighborPolicyRequest;
import dev.sart.proto.v1.SetPolicyRequest;
import dev.sart.proto.v1.SetRouterIdRequest;
import dev.sart.proto.v1.WatchPeerStateRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node's BGP speaker as the agent sees it: sart.v1 BgpApi over gRPC (DESIGN.md §2: the agent
 * never imports the speaker, even inside one JVM). One instance per endpoint ({@code
 * speaker.path}).
 */
final class Speaker implements AutoCloseable {
  private final String endpoint;
  private final Duration timeout;
  private final ManagedChannel channel;

  Speaker(String endpoint, Duration timeout) {
    this.endpoint = endpoint;
    this.timeout = timeout;
    // in process when the speaker runs in this JVM (sartd node; LocalEndpoints)
    this.channel =
        LocalEndpoints.channel(
            endpoint, () -> NettyChannelBuilder.forTarget(endpoint).usePlaintext().build());
  }

  String endpoint() {
    return endpoint;
  }

  private BgpApiGrpc.BgpApiBlockingStub api() {
    return BgpApiGrpc.newBlockingStub(channel)
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  BgpInfo info() {
    return api().getBgpInfo(GetBgpInfoRequest.getDefaultInstance()).getInfo();
  }

  void configure(long asn, String routerId) {
    api().setAS(SetASRequest.newBuilder().setAsn((int) asn).build());
    api().setRouterId(SetRouterIdRequest.newBuilder().setRouterId(routerId).build());
  }

  void multipath(boolean enable) {
    api().configureMultiPath(ConfigureMultiPathRequest.newBuilder().setEnable(enable).build());
  }

  /** ClearBgpInfo: the speaker drops its peers and originated paths and goes back to AS 0. */
  void clear() {
    api().clearBgpInfo(dev.sart.proto.v1.ClearBgpInfoRequest.getDefaultInstance());
  }

  List<Peer> neighbors() {
    return api().listNeighbor(ListNeighborRequest.getDefaultInstance()).getPeersList();
  }

  /** Adds a peer; false when the speaker has one at that address already. */
  boolean addPeer(Peer peer) {
    try {
      api().addPeer(AddPeerRequest.newBuilder().setPeer(peer).build());
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return false;
      }
      throw e;
    }
  }

  /**
   * A new configuration for a peer the speaker has (UpdatePeer: its session restarts with Cease /
   * Other Configuration Change, graceful where both sides sent RFC 8538's N bit); a peer it does
   * not have is added.
   */
  void updatePeer(Peer peer) {
    try {
      api().updatePeer(dev.sart.proto.v1.UpdatePeerRequest.newBuilder().setPeer(peer).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
      addPeer(peer);
    }
  }

  /** Deletes a peer; a peer the speaker does not have is fine. */
  void deletePeer(String address) {
    try {
      api().deletePeer(DeletePeerRequest.newBuilder().setAddr(address).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
    }
  }

  void addPath(String cidr) {
    addPath(cidr, AdvertisementAttrs.NONE);
  }

  /** Originates (or re-originates with other attributes) a prefix. */
  void addPath(String cidr, AdvertisementAttrs attrs) {
    var request = AddPathRequest.newBuilder().setFamily(family(cidr)).addPrefixes(cidr);
    if (!attrs.communities().isEmpty()) {
      var c = CommunitiesAttribute.newBuilder();
      attrs.communities().forEach(v -> c.addCommunities(v.intValue()));
      request.addAttributes(Any.pack(c.build()));
    }
    if (!attrs.largeCommunities().isEmpty()) {
      var c = LargeCommunitiesAttribute.newBuilder();
      for (var l : attrs.largeCommunities()) {
        c.addCommunities(
            LargeCommunity.newBuilder()
                .setGlobalAdmin((int) l.globalAdmin())
                .setLocalData1((int) l.localData1())
                .setLocalData2((int) l.localData2()));
      }
      request.addAttributes(Any.pack(c.build()));
    }
    // the speaker sends LOCAL_PREF to internal peers only (RFC 4271 §5.1.5)
    if (attrs.localPref() != null) {
      request.addAttributes(
          Any.pack(LocalPrefAttribute.newBuilder().setValue(attrs.localPref().intValue()).build()));
    }
    if (attrs.med() != null) {
      request.addAttributes(
          Any.pack(MultiExitDiscAttribute.newBuilder().setValue(attrs.med().intValue()).build()));
    }
    api().addPath(request.build());
  }

  /**
   * Every path of this node is in the speaker again (after its start): its graceful restart may end
   * (RFC 4724 §4.1). A speaker that does not know the call (sart's) is not restarting:
   * UNIMPLEMENTED is ignored.
   */
  void localPathsComplete() {
    try {
      api().localPathsComplete(dev.sart.proto.v1.LocalPathsCompleteRequest.getDefaultInstance());
    } catch (io.grpc.StatusRuntimeException e) {
      if (e.getStatus().getCode() != io.grpc.Status.Code.UNIMPLEMENTED) {
        throw e;
      }
    }
  }

  void deletePath(String cidr) {
    api()
        .deletePath(
            DeletePathRequest.newBuilder().setFamily(family(cidr)).addPrefixes(cidr).build());
  }

  /** The prefixes originated locally (paths with no peer), IPv4 and IPv6. */
  List<String> localPrefixes() {
    List<String> out = new ArrayList<>();
    for (AddressFamily.Afi afi : List.of(AddressFamily.Afi.AFI_IP4, AddressFamily.Afi.AFI_IP6)) {
      AddressFamily f =
          AddressFamily.newBuilder().setAfi(afi).setSafi(AddressFamily.Safi.SAFI_UNICAST).build();
      api().getPath(GetPathRequest.newBuilder().setFamily(f).build()).getPathsList().stream()
          .filter(p -> p.getPeerAddr().isEmpty())
          .forEach(p -> out.add(p.getNlri()));
    }
    return out;
  }

  /** Defines or replaces a named policy (the peers using it get the new one at once). */
  void setPolicy(Policy policy) {
    api().setPolicy(SetPolicyRequest.newBuilder().setPolicy(policy).build());
  }

  /** Deletes a named policy; one the speaker does not have is fine. */
  void deletePolicy(String name) {
    try {
      api().deletePolicy(DeletePolicyRequest.newBuilder().setName(name).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
    }
  }

  List<Policy> policies() {
    return api().listPolicy(ListPolicyRequest.getDefaultInstance()).getPoliciesList();
  }

  /**
   * Gives a running peer another export policy; its import policy, prefix limit, soft
   * reconfiguration and advertise-peer-as (which SetNeighborPolicy replaces too) are kept as the
   * speaker reports them.
   */
  void setExportPolicy(Peer current, String exportPolicy) {
    api()
        .setNeighborPolicy(
            SetNeighborPolicyRequest.newBuilder()
                .setAddr(current.getAddress())
                .setImportPolicy(current.getImportPolicy())
                .setExportPolicy(exportPolicy)
                .setMaxPrefix(current.getMaxPrefix())
                .setSoftReconfigurationInbound(current.getSoftReconfigurationInbound())
                .setAdvertisePeerAs(current.getAdvertisePeerAs())
                .build());
  }

  /** Starts the speaker's peer-state stream: the current state of every peer, then each change. */
  void watchPeerState(StreamObserver<PeerStateEvent> observer) {
    BgpApiGrpc.newStub(channel)
        .watchPeerState(WatchPeerStateRequest.getDefaultInstance(), observer);
  }

  static AddressFamily family(String cidr) {
    return AddressFamily.newBuilder()
        .setAfi(cidr.contains(":") ? AddressFamily.Afi.AFI_IP6 : AddressFamily.Afi.AFI_IP4)
        .setSafi(AddressFamily.Safi.SAFI_UNICAST)
        .build();
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
