package dev.sart.bgp.api;

import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.RouteView;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.LargeCommunities;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.ApiErrors;
import dev.sart.proto.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * sart.v1.BgpApi over a {@link BgpServer}: sart's semantics with its quirks fixed (timers and
 * families in AddPeer are honoured, ClearBgpInfo clears, a missing peer is NOT_FOUND at once).
 */
public final class BgpApiService extends BgpApiGrpc.BgpApiImplBase {
  private final BgpServer server;

  public BgpApiService(BgpServer server) {
    this.server = server;
  }

  @Override
  public void health(HealthRequest request, StreamObserver<Empty> out) {
    reply(out, () -> Empty.getDefaultInstance());
  }

  @Override
  public void getBgpInfo(GetBgpInfoRequest request, StreamObserver<GetBgpInfoResponse> out) {
    reply(
        out,
        () ->
            GetBgpInfoResponse.newBuilder()
                .setInfo(
                    BgpInfo.newBuilder()
                        .setAsn((int) server.localAs())
                        .setRouterId(
                            server.routerId() == 0 ? "0.0.0.0" : Ip.formatV4(server.routerId()))
                        .setPort(server.port())
                        .setMultiPath(server.multipath())
                        .setClusterId(
                            server.clusterId() == 0 ? "0.0.0.0" : Ip.formatV4(server.clusterId()))
                        .setRestarting(server.restart() != null && !server.restart().complete())
                        .addAllRestartWaitingFor(
                            server.restart() == null || server.restart().complete()
                                ? List.of()
                                : server.restart().waitingFor()))
                .build());
  }

  @Override
  public void getNeighbor(GetNeighborRequest request, StreamObserver<GetNeighborResponse> out) {
    reply(
        out,
        () ->
            GetNeighborResponse.newBuilder()
                .setPeer(ProtoMapping.peer(peer(request.getAddr())))
                .build());
  }

  @Override
  public void listNeighbor(ListNeighborRequest request, StreamObserver<ListNeighborResponse> out) {
    reply(
        out,
        () -> {
          ListNeighborResponse.Builder b = ListNeighborResponse.newBuilder();
          server.peers().stream()
              .sorted(
                  (x, y) ->
                      ProtoMapping.address(x.config().address())
                          .compareTo(ProtoMapping.address(y.config().address())))
              .forEach(p -> b.addPeers(ProtoMapping.peer(p)));
          return b.build();
        });
  }

  @Override
  public void getPath(GetPathRequest request, StreamObserver<GetPathResponse> out) {
    Family f = familyOrIpv4(request.getFamily());
    replyAsync(
        out,
        server
            .rib()
            .query(
                v -> {
                  GetPathResponse.Builder b = GetPathResponse.newBuilder();
                  for (RouteView r : v.routes(f)) {
                    for (dev.sart.bgp.rib.Path p : r.paths()) {
                      b.addPaths(
                          ProtoMapping.path(
                              r.prefix(), p, r.isSelected(p), server.rib().isStale(p)));
                    }
                  }
                  return b.build();
                }));
  }

  @Override
  public void getPathByPrefix(
      GetPathByPrefixRequest request, StreamObserver<GetPathByPrefixResponse> out) {
    Prefix prefix;
    try {
      prefix = Prefix.parse(request.getPrefix());
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    replyAsync(
        out,
        server
            .rib()
            .query(
                v -> {
                  GetPathByPrefixResponse.Builder b = GetPathByPrefixResponse.newBuilder();
                  RouteView r = v.route(prefix);
                  if (r != null) {
                    r.paths()
                        .forEach(
                            p ->
                                b.addPaths(
                                    ProtoMapping.path(
                                        r.prefix(), p, r.isSelected(p), server.rib().isStale(p))));
                  }
                  return b.build();
                }));
  }

  @Override
  public void getNeighborPath(
      GetNeighborPathRequest request, StreamObserver<GetNeighborPathResponse> out) {
    Peer peer;
    try {
      peer = peer(request.getAddr());
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    }
    Family f = familyOrIpv4(request.getFamily());
    CompletableFuture<GetNeighborPathResponse> result;
    if (request.getKind() == GetNeighborPathRequest.Kind.OUT) {
      // the Adj-RIB-Out is what the Loc-RIB exports to the peer (nothing else keeps it per route)
      result =
          peer.ribPeer()
              .thenCompose(
                  rp ->
                      rp == null
                          ? CompletableFuture.completedFuture(
                              GetNeighborPathResponse.getDefaultInstance())
                          : server
                              .rib()
                              .query(
                                  v -> {
                                    GetNeighborPathResponse.Builder b =
                                        GetNeighborPathResponse.newBuilder();
                                    v.advertisedTo(rp, f)
                                        .forEach(
                                            e ->
                                                b.addPaths(
                                                    ProtoMapping.attrs(e.getKey(), e.getValue())
                                                        .setBest(true)));
                                    return b.build();
                                  }));
    } else if (request.getPrePolicy()) {
      result =
          peer.ribPeer()
              .thenCompose(
                  rp ->
                      rp == null
                          ? CompletableFuture.completedFuture(
                              GetNeighborPathResponse.getDefaultInstance())
                          : server
                              .rib()
                              .query(
                                  v -> {
                                    var received = v.receivedPrePolicy(rp, f);
                                    if (received == null) {
                                      throw new IllegalStateException(
                                          "peer "
                                              + request.getAddr()
                                              + " keeps no routes as received (enable soft_reconfiguration_inbound)");
                                    }
                                    GetNeighborPathResponse.Builder b =
                                        GetNeighborPathResponse.newBuilder();
                                    received.forEach(
                                        e ->
                                            b.addPaths(
                                                ProtoMapping.attrs(e.getKey(), e.getValue())
                                                    .setPeerAsn((int) rp.asn())
                                                    .setPeerAddr(
                                                        ProtoMapping.address(rp.address()))));
                                    return b.build();
                                  }));
    } else {
      result =
          peer.ribPeer()
              .thenCompose(
                  rp ->
                      rp == null
                          ? CompletableFuture.completedFuture(
                              GetNeighborPathResponse.getDefaultInstance())
                          : server
                              .rib()
                              .query(
                                  v -> {
                                    GetNeighborPathResponse.Builder b =
                                        GetNeighborPathResponse.newBuilder();
                                    for (RouteView r : v.receivedFrom(rp, f)) {
                                      r.paths()
                                          .forEach(
                                              p ->
                                                  b.addPaths(
                                                      ProtoMapping.path(
                                                          r.prefix(), p, r.isSelected(p))));
                                    }
                                    return b.build();
                                  }));
    }
    replyAsync(out, result);
  }

  @Override
  public void setAS(SetASRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          server.setLocalAs(Integer.toUnsignedLong(request.getAsn()));
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void setRouterId(SetRouterIdRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          InetAddress a = InetAddress.ofLiteral(request.getRouterId());
          if (a.getAddress().length != 4) {
            throw new IllegalArgumentException(
                "a router id is an IPv4 address: " + request.getRouterId());
          }
          server.setRouterId(Ip.parseV4(request.getRouterId()));
          FabricMapping.clusterId(request, server);
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void clearBgpInfo(ClearBgpInfoRequest request, StreamObserver<Empty> out) {
    List<CompletableFuture<Void>> stops = new ArrayList<>();
    for (Peer p : List.copyOf(server.peers())) {
      stops.add(server.deletePeer(p.config().address()));
    }
    replyAsync(
        out,
        CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new))
            // not on the peer loop that completed the last stop: management waits for its owner
            .thenApplyAsync(
                v -> {
                  server.clear();
                  return Empty.getDefaultInstance();
                },
                r -> Thread.ofVirtual().start(r)));
  }

  @Override
  public void addPeer(AddPeerRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          dev.sart.proto.v1.Peer p = request.getPeer();
          PeerConfig c = ProtoMapping.peerConfig(p);
          if (server.peer(c.address()) != null) {
            throw Status.ALREADY_EXISTS
                .withDescription("peer " + p.getAddress() + " exists")
                .asRuntimeException();
          }
          server.addPeer(c, peerPolicy(p));
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void updatePeer(UpdatePeerRequest request, StreamObserver<Empty> out) {
    CompletableFuture<Void> replaced;
    try {
      replaced =
          ApiErrors.request(
              () -> {
                dev.sart.proto.v1.Peer p = request.getPeer();
                PeerConfig c = ProtoMapping.peerConfig(p);
                if (p.getInterface().isEmpty()) {
                  peer(p.getAddress()); // NOT_FOUND naming it
                } else if (!server.interfacePeers().contains(p.getInterface())) {
                  throw Status.NOT_FOUND
                      .withDescription("no peer on interface " + p.getInterface())
                      .asRuntimeException();
                }
                return server.replacePeer(c, peerPolicy(p));
              });
    } catch (RuntimeException e) {
      out.onError(ApiErrors.toStatus(e));
      return;
    }
    replyAsync(
        out,
        replaced
            .exceptionally(
                e -> {
                  Throwable t =
                      e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                          ? e.getCause()
                          : e;
                  // deleted meanwhile
                  throw t instanceof IllegalArgumentException a
                      ? Status.NOT_FOUND.withDescription(a.getMessage()).asRuntimeException()
                      : new java.util.concurrent.CompletionException(t);
                })
            .thenApply(v -> Empty.getDefaultInstance()));
  }

  private dev.sart.bgp.policy.PeerPolicy peerPolicy(dev.sart.proto.v1.Peer p) {
    return PolicyMapping.peerPolicy(
        server.policies(),
        p.getImportPolicy(),
        p.getExportPolicy(),
        p.getMaxPrefix(),
        p.getSoftReconfigurationInbound(),
        p.getAdvertisePeerAs());
  }

  @Override
  public void deletePeer(DeletePeerRequest request, StreamObserver<Empty> out) {
    if (server.interfacePeers().contains(request.getAddr())) {
      replyAsync(
          out,
          server.deleteInterfacePeer(request.getAddr()).thenApply(v -> Empty.getDefaultInstance()));
      return;
    }
    Peer peer;
    try {
      peer = peer(request.getAddr());
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    }
    replyAsync(
        out, server.deletePeer(peer.config().address()).thenApply(v -> Empty.getDefaultInstance()));
  }

  @Override
  public void addPath(AddPathRequest request, StreamObserver<AddPathResponse> out) {
    command(
        out,
        () -> {
          List<Prefix> prefixes = prefixes(request.getPrefixesList());
          server.addPaths(prefixes, attributes(request.getAttributesList()));
          return AddPathResponse.getDefaultInstance();
        });
  }

  @Override
  public void deletePath(DeletePathRequest request, StreamObserver<DeletePathResponse> out) {
    command(
        out,
        () -> {
          server.deletePaths(prefixes(request.getPrefixesList()));
          return DeletePathResponse.getDefaultInstance();
        });
  }

  @Override
  public void configureMultiPath(ConfigureMultiPathRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          server.setMultipath(request.getEnable());
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void localPathsComplete(
      dev.sart.proto.v1.LocalPathsCompleteRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          server.localPathsComplete();
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void watchPeerState(WatchPeerStateRequest request, StreamObserver<PeerStateEvent> out) {
    Watches.peerStates(server, out);
  }

  @Override
  public void watchPath(WatchPathRequest request, StreamObserver<PathEvent> out) {
    Watches.paths(server, familyOrIpv4(request.getFamily()), out);
  }

  @Override
  public void refreshNeighbor(RefreshNeighborRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          Peer p = peer(request.getAddr());
          if (request.getSoftIn()) {
            p.requestRouteRefresh();
          } else {
            p.resendAdjRibOut();
          }
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void setPolicy(SetPolicyRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          server.policies().define(PolicyMapping.policy(request.getPolicy()));
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void deletePolicy(DeletePolicyRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          if (!server.policies().delete(request.getName())) {
            throw Status.NOT_FOUND
                .withDescription("no policy '" + request.getName() + "'")
                .asRuntimeException();
          }
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void listPolicy(ListPolicyRequest request, StreamObserver<ListPolicyResponse> out) {
    reply(
        out,
        () ->
            ListPolicyResponse.newBuilder()
                .addAllPolicies(
                    server.policies().all().stream().map(PolicyMapping::policy).toList())
                .build());
  }

  @Override
  public void setNeighborPolicy(SetNeighborPolicyRequest request, StreamObserver<Empty> out) {
    command(
        out,
        () -> {
          Peer p = peer(request.getAddr());
          p.setPolicy(
              PolicyMapping.peerPolicy(
                  server.policies(),
                  request.getImportPolicy(),
                  request.getExportPolicy(),
                  request.getMaxPrefix(),
                  request.getSoftReconfigurationInbound(),
                  request.getAdvertisePeerAs()));
          return Empty.getDefaultInstance();
        });
  }

  @Override
  public void explainExport(
      dev.sart.proto.v1.ExplainExportRequest request,
      StreamObserver<dev.sart.proto.v1.ExplainExportResponse> out) {
    Peer peer;
    Prefix prefix;
    try {
      peer = peer(request.getAddr());
      prefix = Prefix.parse(request.getPrefix());
    } catch (IllegalArgumentException e) {
      out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      out.onError(ApiErrors.toStatus(e));
      return;
    }
    replyAsync(out, ExportExplanations.explain(server.rib(), peer, prefix));
  }

  // --- helpers
  // ------------------------------------------------------------------------------------

  private Peer peer(String addr) {
    Peer onInterface = FabricMapping.peerOnInterface(server, addr);
    if (onInterface != null) {
      return onInterface;
    }
    Peer p = server.peer(ProtoMapping.address(addr));
    if (p == null) {
      throw Status.NOT_FOUND.withDescription("no peer " + addr).asRuntimeException();
    }
    return p;
  }

  private static Family familyOrIpv4(AddressFamily f) {
    Family fam = ProtoMapping.family(f);
    return fam == null ? Family.IPV4_UNICAST : fam;
  }

  private static List<Prefix> prefixes(List<String> texts) {
    if (texts.isEmpty()) {
      throw new IllegalArgumentException("no prefixes given");
    }
    List<Prefix> ps = new ArrayList<>();
    for (String t : texts) {
      ps.add(Prefix.parse(t));
    }
    return ps;
  }

  /** The attributes of AddPath, from sart's Any-packed messages plus our community ones. */
  static PathAttributes attributes(List<Any> anys) {
    PathAttributes.Builder b = PathAttributes.builder();
    boolean origin = false;
    try {
      for (Any any : anys) {
        if (any.is(OriginAttribute.class)) {
          int v = any.unpack(OriginAttribute.class).getValue();
          if (v > 2) {
            throw new IllegalArgumentException(
                "ORIGIN must be 0 (IGP), 1 (EGP) or 2 (INCOMPLETE): " + v);
          }
          b.add(Origin.values()[v]);
          origin = true;
        } else if (any.is(LocalPrefAttribute.class)) {
          b.add(
              new LocalPref(
                  Integer.toUnsignedLong(any.unpack(LocalPrefAttribute.class).getValue())));
        } else if (any.is(MultiExitDiscAttribute.class)) {
          b.add(
              new MultiExitDisc(
                  Integer.toUnsignedLong(any.unpack(MultiExitDiscAttribute.class).getValue())));
        } else if (any.is(AsPathAttribute.class)) {
          AsPath.Builder path = AsPath.builder();
          for (AsSegment s : any.unpack(AsPathAttribute.class).getSegmentsList()) {
            long[] asns = s.getElmList().stream().mapToLong(Integer::toUnsignedLong).toArray();
            path.segment(
                s.getType() == AsSegment.Type.AS_SET
                    ? Iana.AsPathSegmentType.AS_SET
                    : Iana.AsPathSegmentType.AS_SEQUENCE,
                asns);
          }
          b.add(path.build());
        } else if (any.is(CommunitiesAttribute.class)) {
          b.add(
              Communities.of(
                  any.unpack(CommunitiesAttribute.class).getCommunitiesList().stream()
                      .mapToInt(Integer::intValue)
                      .toArray()));
        } else if (any.is(LargeCommunitiesAttribute.class)) {
          List<Long> parts = new ArrayList<>();
          for (LargeCommunity c :
              any.unpack(LargeCommunitiesAttribute.class).getCommunitiesList()) {
            parts.add(Integer.toUnsignedLong(c.getGlobalAdmin()));
            parts.add(Integer.toUnsignedLong(c.getLocalData1()));
            parts.add(Integer.toUnsignedLong(c.getLocalData2()));
          }
          b.add(LargeCommunities.of(parts.stream().mapToLong(Long::longValue).toArray()));
        } else if (any.is(NextHopAttribute.class) || any.is(AtomicAggregateAttribute.class)) {
          // the next hop is ours, set per peer on export
        } else {
          throw new IllegalArgumentException("unsupported attribute " + any.getTypeUrl());
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("malformed attribute: " + e.getMessage());
    }
    if (!origin) {
      b.add(Origin.IGP);
    }
    return b.build();
  }

  /**
   * Answers a query: anything its body throws is a bug (INTERNAL), except the request's own
   * mistakes, which the helpers that decode request fields report as such.
   */
  private static <T> void reply(StreamObserver<T> out, Supplier<T> body) {
    T value;
    try {
      value = body.get();
    } catch (RuntimeException e) {
      out.onError(ApiErrors.toStatus(e));
      return;
    }
    out.onNext(value);
    out.onCompleted();
  }

  /**
   * Applies a management call: its body judges the request against the speaker, so an {@link
   * IllegalArgumentException} there is INVALID_ARGUMENT and an {@link IllegalStateException}
   * FAILED_PRECONDITION ({@link ApiErrors#request}).
   */
  private static <T> void command(StreamObserver<T> out, Supplier<T> body) {
    reply(out, () -> ApiErrors.request(body));
  }

  private static <T> void replyAsync(StreamObserver<T> out, CompletableFuture<T> f) {
    f.whenComplete(
        (v, e) -> {
          if (e != null) {
            out.onError(ApiErrors.toStatus(e));
          } else {
            out.onNext(v);
            out.onCompleted();
          }
        });
  }
}
