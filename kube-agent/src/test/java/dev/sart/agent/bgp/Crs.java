package dev.sart.agent.bgp;

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
import java.util.Map;

/** Objects as sart's controller (or an operator) makes them. */
final class Crs {
  private Crs() {}

  static NodeBGP nodeBgp(String node, long asn, String routerId, String endpoint) {
    return new NodeBGP(
        node, new NodeBGPSpec(asn, routerId, new SpeakerConfig(endpoint, 5L, false), null));
  }

  static BGPPeer peer(
      String node,
      long asn,
      String addr,
      Long holdTime,
      Long keepalive,
      Map<String, String> annotations) {
    String name = node + "-" + asn + "-" + addr;
    BGPPeer p =
        new BGPPeer(
            name,
            new BGPPeerSpec(
                asn,
                addr,
                holdTime,
                keepalive,
                null,
                node,
                null,
                new SpeakerConfig("unused", null, null),
                null));
    p.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, node));
    p.getMetadata().setAnnotations(annotations);
    return p;
  }

  /** Creates the advert and writes the controller's part of the status: the target peers. */
  static BGPAdvertisement advert(
      KubernetesClient client,
      String ns,
      String name,
      String cidr,
      Map<String, AdvertiseStatus> peers) {
    BGPAdvertisement a =
        new BGPAdvertisement(
            ns,
            name,
            new BGPAdvertisementSpec(
                cidr,
                AddressType.SERVICE,
                cidr.contains(":") ? Protocol.IPV6 : Protocol.IPV4,
                null));
    client.resource(a).create();
    return client
        .resources(BGPAdvertisement.class)
        .inNamespace(ns)
        .withName(name)
        .editStatus(
            cur -> {
              cur.setStatus(new BGPAdvertisementStatus(peers));
              return cur;
            });
  }
}
