package dev.sart.cli;

import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code sart explain pod}: the pod's address → its AddressBlock and pool → the node → the block's
 * BGPAdvertisement → the node's peers, the speaker's Adj-RIB-Out for the block and the sessions →
 * the kernels' routes to the pod on its node and the others ({@link KernelRoutes}).
 */
final class PodChain {
  private final KubernetesClient client;
  private final Speakers speakers;
  private final Fibs fibs;

  PodChain(KubernetesClient client, Speakers speakers, Fibs fibs) {
    this.client = client;
    this.speakers = speakers;
    this.fibs = fibs;
  }

  Link explain(String namespace, String name, String onlyAddress) {
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    Link root = Link.ok("pod", namespace + "/" + name, "");
    if (pod == null) {
      root.state = Link.State.broken;
      root.summary = "no such pod";
      root.fix = "check the namespace and name: kubectl get pods -n " + namespace;
      return root;
    }
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    List<String> ips =
        pod.getStatus() == null || pod.getStatus().getPodIPs() == null
            ? List.of()
            : pod.getStatus().getPodIPs().stream().map(x -> x.getIp()).toList();
    root.summary = "on node " + (node == null ? "(not scheduled)" : node) + ", addresses " + ips;
    if (Boolean.TRUE.equals(pod.getSpec().getHostNetwork())) {
      root.state = Link.State.broken;
      root.summary += ": hostNetwork pod, its address is the node's";
      root.fix = "nothing to announce: sart announces pod blocks, not node addresses";
      return root;
    }
    if (ips.isEmpty()) {
      root.state = Link.State.broken;
      root.summary += ": no address yet";
      root.fix =
          "the CNI ADD has not succeeded: kubectl describe pod shows the sandbox error; check"
              + " sartd agent on the node";
      return root;
    }
    List<AddressBlock> blocks = client.resources(AddressBlock.class).list().getItems();
    List<AddressPool> pools = client.resources(AddressPool.class).list().getItems();
    for (String ip : ips) {
      if (onlyAddress == null || onlyAddress.equals(ip)) {
        root.add(address(ip, node, blocks, pools));
      }
    }
    return root;
  }

  private Link address(String ip, String node, List<AddressBlock> blocks, List<AddressPool> pools) {
    Link l = Link.ok("address", ip, "");
    Optional<AddressBlock> block =
        blocks.stream()
            .filter(b -> b.getSpec() != null && b.getSpec().type() == AddressType.POD)
            .filter(b -> IpPrefix.parseCidr(b.getSpec().cidr()).contains(Ip.parse(ip)))
            .findFirst();
    if (block.isEmpty()) {
      var pool = ServiceChain.poolOf(pools, ip);
      l.add(
          Link.broken(
              "block",
              "",
              "no pod AddressBlock holds "
                  + ip
                  + pool.map(p -> " (it lies in pool " + p.getMetadata().getName() + ")")
                      .orElse(" and no pool contains it"),
              "the address did not come from sart's IPAM, or its block was deleted: recreate the pod"));
      return l;
    }
    var b = block.get().getSpec();
    String blockName = block.get().getMetadata().getName();
    boolean poolExists =
        pools.stream().anyMatch(p -> p.getMetadata().getName().equals(b.poolRef()));
    l.add(
        poolExists
            ? Link.ok("pool", b.poolRef(), "pod pool of block " + blockName)
            : Link.broken(
                "pool",
                b.poolRef(),
                "the block's pool is gone",
                "recreate AddressPool " + b.poolRef()));
    Link bl = l.add(Link.ok("block", blockName, b.cidr() + " on node " + b.nodeRef()));
    if (node != null && !node.equals(b.nodeRef())) {
      bl.state = Link.State.broken;
      bl.summary += ", but the pod runs on " + node;
      bl.fix = "the pod's address belongs to another node's block: recreate the pod";
      return l;
    }
    BGPAdvertisement adv =
        client.resources(BGPAdvertisement.class).inAnyNamespace().list().getItems().stream()
            .filter(a -> a.getSpec() != null && b.cidr().equals(a.getSpec().cidr()))
            .findFirst()
            .orElse(null);
    if (adv == null) {
      l.add(
          Link.broken(
              "advertisement",
              "",
              "no BGPAdvertisement for block " + b.cidr(),
              "the agent on "
                  + b.nodeRef()
                  + " makes it (in kube-system): check sartd agent there"));
      return l;
    }
    Map<String, AdvertiseStatus> entries =
        adv.getStatus() == null || adv.getStatus().peers() == null
            ? Map.of()
            : adv.getStatus().peers();
    List<BGPPeer> peers =
        client
            .resources(BGPPeer.class)
            .withLabel(Sart.BGP_PEER_NODE_LABEL, b.nodeRef())
            .list()
            .getItems();
    String advName = adv.getMetadata().getNamespace() + "/" + adv.getMetadata().getName();
    if (peers.isEmpty()) {
      l.add(
          Link.broken(
              "advertisement",
              advName,
              "node " + b.nodeRef() + " has no BGPPeer: the block is announced to nobody",
              "give the node peers (a ClusterBGP whose nodeSelector matches it)"));
      return l;
    }
    l.add(Link.ok("advertisement", advName, entries.size() + " peer entr(ies): " + entries));
    NodeLinks.Tally tally = new NodeLinks.Tally();
    l.add(NodeLinks.node(client, speakers, b.nodeRef(), peers, entries, b.cidr(), tally));
    l.add(
        KernelRoutes.routes(
            fibs,
            speakers,
            ip,
            b.cidr(),
            b.nodeRef(),
            client.resources(NodeBGP.class).list().getItems()));
    l.summary = "block " + b.cidr() + " " + tally.announcedOn() + tally.unaskedNote();
    return l;
  }
}
