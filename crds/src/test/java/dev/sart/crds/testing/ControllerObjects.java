package dev.sart.crds.testing;

import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;

/**
 * The objects sart's controller makes for a node's agent, for the tests that play the controller
 * (the agent's tests and the end-to-end ones).
 */
public final class ControllerObjects {
  private ControllerObjects() {}

  /** The node's NodeBGP: its speaker at {@code endpoint}, 5 s timeout, no multipath. */
  public static NodeBGP nodeBgp(String node, long asn, String routerId, String endpoint) {
    return new NodeBGP(
        node, new NodeBGPSpec(asn, routerId, new SpeakerConfig(endpoint, 5L, false), null));
  }

  /**
   * {@code <node>-<asn>-<addr>}, the name the controller gives a node's BGPPeer (an IPv6 address's
   * colons as dashes, as NodePlan names it).
   */
  public static String peerName(String node, long asn, String addr) {
    return node + "-" + asn + "-" + addr.replace(':', '-');
  }

  /**
   * A BGPPeer of {@code node}, labelled with it as the controller labels it; {@code holdTime} and
   * {@code keepalive} null for the defaults, {@code annotations} may be null.
   */
  public static BGPPeer peer(
      String node,
      long asn,
      String addr,
      Long holdTime,
      Long keepalive,
      Map<String, String> annotations) {
    BGPPeer p = newPeer(node, asn, addr, holdTime, keepalive, null);
    p.getMetadata().setAnnotations(annotations);
    return p;
  }

  /** A BGPPeer of {@code node} in these peer groups (null: none), the timers left to defaults. */
  public static BGPPeer peer(String node, long asn, String addr, List<String> groups) {
    return newPeer(node, asn, addr, null, null, groups);
  }

  private static BGPPeer newPeer(
      String node, long asn, String addr, Long holdTime, Long keepalive, List<String> groups) {
    BGPPeer p =
        new BGPPeer(
            peerName(node, asn, addr),
            new BGPPeerSpec(
                asn,
                addr,
                holdTime,
                keepalive,
                null,
                node,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                groups));
    p.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, node));
    return p;
  }

  /**
   * Creates a Service's advertisement and writes the controller's part of its status: the target
   * peers.
   */
  public static BGPAdvertisement advert(
      KubernetesClient client,
      String namespace,
      String name,
      String cidr,
      Map<String, AdvertiseStatus> peers) {
    client
        .resource(
            new BGPAdvertisement(
                namespace,
                name,
                new BGPAdvertisementSpec(
                    cidr,
                    AddressType.SERVICE,
                    cidr.contains(":") ? Protocol.IPV6 : Protocol.IPV4,
                    null)))
        .create();
    return client
        .resources(BGPAdvertisement.class)
        .inNamespace(namespace)
        .withName(name)
        .editStatus(
            cur -> {
              cur.setStatus(new BGPAdvertisementStatus(peers));
              return cur;
            });
  }
}
