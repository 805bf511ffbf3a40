package dev.sart.cli;

import dev.sart.crds.NodeBGP;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.BgpInfo;
import dev.sart.proto.v1.ExplainExportRequest;
import dev.sart.proto.v1.ExplainExportResponse;
import dev.sart.proto.v1.GetBgpInfoRequest;
import dev.sart.proto.v1.GetNeighborRequest;
import dev.sart.proto.v1.Peer;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The node speakers' gRPC APIs, as {@code explain} asks them: a neighbour's session and whether a
 * prefix is exported to it. One channel per endpoint; read-only calls only.
 */
final class Speakers implements AutoCloseable {
  /** What a speaker answered about one neighbour, or why it could not be asked. */
  record Answer(Peer peer, ExplainExportResponse export, String error, boolean unreachable) {}

  private final Map<String, String> overrides;
  private final Map<String, ManagedChannel> channels = new HashMap<>();
  private final Map<String, Optional<BgpInfo>> identities = new HashMap<>();

  /**
   * @param overrides node name → host:port, used instead of the NodeBGP's {@code speaker.path}
   */
  Speakers(Map<String, String> overrides) {
    this.overrides = overrides;
  }

  /** The endpoint explain uses for a node's speaker. */
  String endpoint(String node, String fromNodeBgp) {
    return overrides.getOrDefault(node, fromNodeBgp);
  }

  /**
   * Why the speaker at {@code endpoint} cannot be taken for {@code nb}'s node, or null when it
   * answers with the NodeBGP's AS and router id (or cannot be asked: {@link #ask} says why). Every
   * node's speaker listens on the same node-local address (127.0.0.1:5000 by default), which from
   * any one node reaches that node's speaker: explain run there must not read its answers as
   * another node's (they named the wrong sessions and routes as broken, or as fine).
   */
  String notOf(String endpoint, NodeBGP nb) {
    Optional<BgpInfo> info = identity(endpoint);
    if (info.isEmpty() || nb.getSpec() == null) {
      return null;
    }
    long asn = Integer.toUnsignedLong(info.get().getAsn());
    String routerId = info.get().getRouterId();
    if (Objects.equals(nb.getSpec().asn(), asn)
        && Objects.equals(nb.getSpec().routerId(), routerId)) {
      return null;
    }
    return "the speaker at "
        + endpoint
        + (asn == 0 && routerId.isEmpty()
            ? " has no AS or router id yet"
            : " answers as AS " + asn + ", router id " + routerId)
        + ", not as "
        + nb.getMetadata().getName()
        + "'s NodeBGP (AS "
        + nb.getSpec().asn()
        + ", router id "
        + nb.getSpec().routerId()
        + "): another node's speaker (a node-local address reaches the one of the node explain"
        + " runs on), or one its agent has not configured yet";
  }

  /** The AS and router id the speaker at {@code endpoint} answers with; empty if it cannot. */
  Optional<BgpInfo> identity(String endpoint) {
    return identities.computeIfAbsent(endpoint, this::info);
  }

  /**
   * The node, other than {@code node}, whose NodeBGP has the AS and router id the speaker at {@code
   * endpoint} answers with: the node explain runs on when {@code endpoint} is node-local. Null when
   * none has.
   */
  static String answeringNode(Optional<BgpInfo> info, java.util.List<NodeBGP> all, String node) {
    if (info.isEmpty()) {
      return null;
    }
    long asn = Integer.toUnsignedLong(info.get().getAsn());
    String routerId = info.get().getRouterId();
    return all.stream()
        .filter(n -> n.getSpec() != null && !n.getMetadata().getName().equals(node))
        .filter(
            n ->
                Objects.equals(n.getSpec().asn(), asn)
                    && Objects.equals(n.getSpec().routerId(), routerId))
        .map(n -> n.getMetadata().getName())
        .findFirst()
        .orElse(null);
  }

  private Optional<BgpInfo> info(String endpoint) {
    try {
      return Optional.of(
          BgpApiGrpc.newBlockingStub(channel(endpoint))
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .getBgpInfo(GetBgpInfoRequest.getDefaultInstance())
              .getInfo());
    } catch (IllegalArgumentException | StatusRuntimeException e) {
      return Optional.empty();
    }
  }

  Answer ask(String endpoint, String neighbor, String prefix) {
    BgpApiGrpc.BgpApiBlockingStub stub;
    try {
      stub = BgpApiGrpc.newBlockingStub(channel(endpoint)).withDeadlineAfter(5, TimeUnit.SECONDS);
    } catch (IllegalArgumentException e) {
      return new Answer(null, null, e.getMessage(), true);
    }
    Peer peer;
    try {
      peer = stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr(neighbor).build()).getPeer();
    } catch (StatusRuntimeException e) {
      return failure(endpoint, e);
    }
    try {
      ExplainExportResponse x =
          BgpApiGrpc.newBlockingStub(channel(endpoint))
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .explainExport(
                  ExplainExportRequest.newBuilder().setAddr(neighbor).setPrefix(prefix).build());
      return new Answer(peer, x, null, false);
    } catch (StatusRuntimeException e) {
      Answer f = failure(endpoint, e);
      return new Answer(peer, null, f.error(), f.unreachable());
    }
  }

  private static Answer failure(String endpoint, StatusRuntimeException e) {
    return switch (e.getStatus().getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED ->
          new Answer(null, null, "cannot reach the speaker's API at " + endpoint, true);
      case NOT_FOUND -> new Answer(null, null, "the speaker has no such neighbour", false);
      case UNIMPLEMENTED ->
          new Answer(null, null, "the speaker at " + endpoint + " has no ExplainExport", false);
      default ->
          new Answer(
              null,
              null,
              e.getStatus().getCode().name().toLowerCase(java.util.Locale.ROOT)
                  + ": "
                  + e.getStatus().getDescription(),
              false);
    };
  }

  private ManagedChannel channel(String endpoint) {
    return channels.computeIfAbsent(
        endpoint,
        ep -> {
          int colon = ep.lastIndexOf(':');
          if (colon < 0) {
            throw new IllegalArgumentException("speaker endpoint must be host:port: " + ep);
          }
          return NettyChannelBuilder.forAddress(
                  ep.substring(0, colon).replace("[", "").replace("]", ""),
                  Integer.parseInt(ep.substring(colon + 1)))
              .usePlaintext()
              .build();
        });
  }

  @Override
  public void close() {
    channels.values().forEach(Sart::close);
  }
}
