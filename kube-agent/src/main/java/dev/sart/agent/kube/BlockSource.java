package dev.sart.agent.kube;

import dev.sart.agent.ipam.Block;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.BlockRequestSpec;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * This node's pod AddressBlocks in the API server (sart.md §6.1, §7): the blocks labelled {@code
 * addressblock.sart.terassyi.net/node=<node>}; a new block is asked for with a BlockRequest {@code
 * <pool>-<node>} that the controller answers with an AddressBlock (the request is deleted once it
 * has); an empty block is given back by deleting its AddressBlock. Each block is announced as one
 * BGPAdvertisement in {@code kube-system}, named like the block, owned by it, with every BGPPeer of
 * the node as a target.
 */
public final class BlockSource {
  private static final Logger LOG = Logger.getLogger(BlockSource.class.getName());
  static final String ADVERT_NAMESPACE = "kube-system";

  private final KubernetesClient client;
  private final String node;
  private final Duration wait;

  /**
   * @param wait how long a block request may take before the CNI ADD is told to try again later
   */
  public BlockSource(KubernetesClient client, String node, Duration wait) {
    this.client = client;
    this.node = node;
    this.wait = wait;
  }

  /** The pod blocks assigned to this node (a block being deleted is not one any more). */
  public List<Block> blocks() {
    return client
        .resources(AddressBlock.class)
        .withLabel(Sart.ADDRESS_BLOCK_NODE_LABEL, node)
        .list()
        .getItems()
        .stream()
        .filter(
            b ->
                b.getSpec() != null
                    && b.getSpec().type() == AddressType.POD
                    && node.equals(b.getSpec().nodeRef())
                    && b.getMetadata().getDeletionTimestamp() == null)
        .map(b -> new Block(b.getSpec().poolRef(), IpPrefix.parse(b.getSpec().cidr())))
        .toList();
  }

  /**
   * Asks for one more block of {@code pool} and waits until an AddressBlock of the pool that is not
   * in {@code known} is assigned to this node; empty when none came within the wait.
   */
  public Optional<Block> request(String pool, Set<Block> known) throws InterruptedException {
    String name = pool + "-" + node;
    try {
      client.resource(new BlockRequest(name, new BlockRequestSpec(pool, node))).create();
      LOG.info(() -> "event=block-requested pool=" + pool + " node=" + node);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // asked already (by an ADD before, or before a restart): wait for the answer
    }
    Instant until = Instant.now().plus(wait);
    while (Instant.now().isBefore(until)) {
      Optional<Block> fresh =
          blocks().stream().filter(b -> b.pool().equals(pool) && !known.contains(b)).findFirst();
      if (fresh.isPresent()) {
        client.resources(BlockRequest.class).withName(name).delete();
        LOG.info(
            () ->
                "event=block-assigned pool="
                    + pool
                    + " node="
                    + node
                    + " cidr="
                    + fresh.get().cidr());
        return fresh;
      }
      Thread.sleep(200);
    }
    return Optional.empty();
  }

  /** Gives an empty block back: its advertisement and its AddressBlock go. */
  public void release(Block block) {
    String name = blockName(block);
    if (name == null) {
      return;
    }
    client.resources(BGPAdvertisement.class).inNamespace(ADVERT_NAMESPACE).withName(name).delete();
    client.resources(AddressBlock.class).withName(name).delete();
    LOG.info(
        () ->
            "event=block-released pool="
                + block.pool()
                + " node="
                + node
                + " cidr="
                + block.cidr());
  }

  /**
   * One BGPAdvertisement per block of this node, with every BGPPeer of the node listed (new peers
   * added as NotAdvertised); the BGP side of the agent announces it. Serialised: {@code sartd
   * agent} calls it on its schedule, on BGPPeer events and from KubeIpam at once (two creations of
   * one advertisement: the second failed with AlreadyExists and stopped the agent at start-up).
   */
  public synchronized void advertise() {
    List<String> peers =
        client
            .resources(BGPPeer.class)
            .withLabel(Sart.BGP_PEER_NODE_LABEL, node)
            .list()
            .getItems()
            .stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .map(p -> p.getMetadata().getName())
            .toList();
    Map<String, List<String>> poolAttrs = new java.util.HashMap<>();
    for (AddressPool pool : client.resources(AddressPool.class).list().getItems()) {
      try {
        if (pool.getSpec() != null) {
          poolAttrs.put(pool.getMetadata().getName(), pool.getSpec().attrs().toAttrs());
        }
      } catch (IllegalArgumentException e) {
        LOG.warning(
            () ->
                "event=pool-attrs-invalid pool="
                    + pool.getMetadata().getName()
                    + " error="
                    + e.getMessage());
      }
    }
    for (AddressBlock b :
        client
            .resources(AddressBlock.class)
            .withLabel(Sart.ADDRESS_BLOCK_NODE_LABEL, node)
            .list()
            .getItems()) {
      if (b.getSpec() == null
          || b.getSpec().type() != AddressType.POD
          || b.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      String name = b.getMetadata().getName();
      // the pool's path attributes (AddressPool communities, localPref, med)
      List<String> attrs = poolAttrs.get(b.getSpec().poolRef());
      BGPAdvertisement a =
          client
              .resources(BGPAdvertisement.class)
              .inNamespace(ADVERT_NAMESPACE)
              .withName(name)
              .get();
      if (a == null) {
        a =
            new BGPAdvertisement(
                ADVERT_NAMESPACE,
                name,
                new BGPAdvertisementSpec(
                    b.getSpec().cidr(),
                    AddressType.POD,
                    b.getSpec().cidr().contains(":") ? Protocol.IPV6 : Protocol.IPV4,
                    attrs));
        a.getMetadata().setLabels(Map.of(Sart.ADDRESS_POOL_LABEL, b.getSpec().poolRef()));
        a.getMetadata()
            .setOwnerReferences(
                List.of(
                    new OwnerReferenceBuilder()
                        .withApiVersion(Sart.API_VERSION)
                        .withKind("AddressBlock")
                        .withName(name)
                        .withUid(b.getMetadata().getUid())
                        .build()));
        client.resource(a).create();
        LOG.info(
            () ->
                "event=block-advertisement-created block=" + name + " cidr=" + b.getSpec().cidr());
      } else if (!Objects.equals(orEmpty(a.getSpec().attrs()), orEmpty(attrs))) {
        client
            .resource(a)
            .patch(
                PatchContext.of(PatchType.JSON),
                attrs == null
                    ? "[{\"op\":\"remove\",\"path\":\"/spec/attrs\"}]"
                    : "[{\"op\":\"add\",\"path\":\"/spec/attrs\",\"value\":"
                        + Serialization.asJson(attrs)
                        + "}]");
        LOG.info(() -> "event=block-advertisement-attrs block=" + name + " attrs=" + attrs);
      }
      Map<String, AdvertiseStatus> have =
          a.getStatus() == null || a.getStatus().peers() == null ? Map.of() : a.getStatus().peers();
      if (!have.keySet().containsAll(peers)) {
        client
            .resources(BGPAdvertisement.class)
            .inNamespace(ADVERT_NAMESPACE)
            .withName(name)
            .editStatus(
                cur -> {
                  Map<String, AdvertiseStatus> m =
                      new LinkedHashMap<>(
                          cur.getStatus() == null || cur.getStatus().peers() == null
                              ? Map.of()
                              : cur.getStatus().peers());
                  peers.forEach(p -> m.putIfAbsent(p, AdvertiseStatus.NotAdvertised));
                  cur.setStatus(new BGPAdvertisementStatus(m));
                  return cur;
                });
      }
    }
  }

  private static List<String> orEmpty(List<String> attrs) {
    return attrs == null ? List.of() : attrs;
  }

  private String blockName(Block block) {
    return client
        .resources(AddressBlock.class)
        .withLabel(Sart.ADDRESS_BLOCK_NODE_LABEL, node)
        .list()
        .getItems()
        .stream()
        .filter(
            b ->
                b.getSpec() != null
                    && b.getSpec().poolRef().equals(block.pool())
                    && IpPrefix.parse(b.getSpec().cidr()).equals(block.cidr()))
        .map(b -> b.getMetadata().getName())
        .findFirst()
        .orElse(null);
  }
}
