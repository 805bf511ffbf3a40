package dev.sart.controller.ipam;

import dev.sart.controller.lb.ServiceViews;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.controller.runtime.Patches;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressBlockStatus;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolStatus;
import dev.sart.crds.AddressType;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.BlockRequestStatus;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Gauge;
import java.math.BigInteger;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * AddressPools and their AddressBlocks:
 *
 * <ul>
 *   <li>a service pool gets one AddressBlock of its whole CIDR, named like the pool (as sart);
 *   <li>a BlockRequest for a pod pool gets the lowest free block, created as {@code
 *       <pool>-<index>}: the name is the lock on the index (a second create of it fails), and the
 *       block carries the request's UID so that a retried request finds its block instead of taking
 *       another;
 *   <li>blocks are owned by the pool and labelled with the pool and the node;
 *   <li>a pool's deletion waits (finalizer) while it has pod blocks or Services hold its addresses;
 *   <li>pod blocks of nodes that no longer exist are deleted (with the agent's finalizer, whose
 *       agent is gone).
 * </ul>
 *
 * Holds no state of its own: the blocks in the API server are the allocation.
 */
public final class PoolReconciler implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PoolReconciler.class.getName());
  public static final String REQUEST_UID_ANNOTATION = "sart.terassyi.net/blockrequest-uid";
  private static final String POOL = "pool:";
  private static final String REQUEST = "request:";
  private static final String GC = "gc";

  private final Informers informers;
  private final Events events;
  private final Metrics metrics;
  private final Loop loop;
  private final Set<String> gauged = new HashSet<>();
  private final List<io.micrometer.core.instrument.Meter> meters =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  public PoolReconciler(Informers informers, Events events, Metrics metrics) {
    this.informers = informers;
    this.events = events;
    this.metrics = metrics;
    this.loop = new Loop("addresspool", this::reconcile, metrics);
    informers.watch(AddressPool.class, p -> loop.enqueue(POOL + p.getMetadata().getName()));
    informers.watch(
        AddressBlock.class,
        b -> {
          if (b.getSpec() != null) {
            loop.enqueue(POOL + b.getSpec().poolRef());
          }
          loop.enqueue(GC);
        });
    informers.watch(BlockRequest.class, r -> loop.enqueue(REQUEST + r.getMetadata().getName()));
    informers.watch(Node.class, n -> loop.enqueue(GC));
    informers.of(Service.class);
  }

  public void start() {
    loop.start();
    informers.list(AddressPool.class).forEach(p -> loop.enqueue(POOL + p.getMetadata().getName()));
    informers
        .list(BlockRequest.class)
        .forEach(r -> loop.enqueue(REQUEST + r.getMetadata().getName()));
    loop.enqueue(GC);
  }

  private Duration reconcile(String key) {
    if (key.startsWith(POOL)) {
      return reconcilePool(key.substring(POOL.length()));
    }
    if (key.startsWith(REQUEST)) {
      return reconcileRequest(key.substring(REQUEST.length()));
    }
    collectBlocksOfGoneNodes();
    return null;
  }

  private List<AddressBlock> blocksOf(String pool) {
    return informers.list(AddressBlock.class).stream()
        .filter(b -> b.getSpec() != null && pool.equals(b.getSpec().poolRef()))
        .toList();
  }

  /** One pass over the pool {@code name} (package-private: a test runs one on its own). */
  Duration reconcilePool(String name) {
    var pool = informers.get(AddressPool.class, name);
    if (pool == null || pool.getSpec() == null) {
      return null;
    }
    var client = informers.client();
    var spec = pool.getSpec();
    if (pool.getMetadata().getDeletionTimestamp() != null) {
      return deletePool(pool);
    }
    gauges(name);
    if (pool.getMetadata().getFinalizers() == null
        || !pool.getMetadata().getFinalizers().contains(Sart.ADDRESS_POOL_FINALIZER)) {
      var held =
          LockedEdit.holdFinalizer(
              client,
              client.resources(AddressPool.class).withName(name),
              Sart.ADDRESS_POOL_FINALIZER);
      // deleted before the controller held it (the cache still shows it): nothing is set up for it
      if (held == null) {
        return null;
      }
      if (held.getMetadata().getDeletionTimestamp() != null) {
        return deletePool(held);
      }
    }
    if (spec.type() == AddressType.SERVICE) {
      var block = informers.get(AddressBlock.class, name);
      var wanted =
          new AddressBlockSpec(
              IpPrefix.parseCidr(spec.cidr()).toString(),
              AddressType.SERVICE,
              name,
              null,
              spec.autoAssignOrFalse());
      if (block == null) {
        try {
          createBlock(pool, name, wanted, null, null);
        } catch (KubernetesClientException e) {
          if (e.getCode() != 409) {
            throw e; // 409: created by the previous pass, not yet in the cache
          }
        }
      } else if (!wanted.equals(block.getSpec()) && name.equals(block.getSpec().poolRef())) {
        LockedEdit.edit(
            client,
            client.resources(AddressBlock.class).withName(name),
            b -> {
              b.setSpec(wanted);
              return b;
            });
      }
    } else if (spec.type() == AddressType.POD) {
      writePodPoolStatus(pool);
    }
    // an egress pool has no blocks: its addresses are claimed by Egresses (egress.SourceAddresses)
    return null;
  }

  /**
   * A pod pool's counts in its status: blocks it can be cut into and blocks that exist (every block
   * event of the pool brings its reconcile here, so the counts follow the blocks). Service pools
   * are counted by the Service reconciler, which holds their allocations.
   */
  private void writePodPoolStatus(AddressPool pool) {
    var cidr = IpPrefix.parseCidr(pool.getSpec().cidr());
    var layout = new Blocks(cidr, blockSize(pool));
    var status =
        AddressPoolStatus.pod(
            cidr.isIpv4(),
            cidr.size(),
            layout.count(),
            blocksOf(pool.getMetadata().getName()).size());
    if (status.equals(pool.getStatus())) {
      return;
    }
    informers
        .client()
        .resource(pool)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), Patches.setStatus(status));
  }

  private Duration deletePool(AddressPool pool) {
    var name = pool.getMetadata().getName();
    var client = informers.client();
    var cidr = IpPrefix.parseCidr(pool.getSpec().cidr());
    String busy = null;
    if (pool.getSpec().type() == AddressType.POD) {
      var blocks = blocksOf(name);
      if (!blocks.isEmpty()) {
        busy = blocks.size() + " AddressBlocks still exist";
      }
    } else {
      var holders =
          informers.list(Service.class).stream()
              .filter(s -> ServiceViews.current(s).stream().anyMatch(cidr::contains))
              .map(ServiceViews::key)
              .toList();
      if (!holders.isEmpty()) {
        busy = "Services still hold its addresses: " + holders;
      } else if (informers.get(AddressBlock.class, name) != null) {
        client.resources(AddressBlock.class).withName(name).delete();
        return null;
      }
    }
    if (busy != null) {
      LOG.info("pool deletion waits name=" + name + " reason=" + busy);
      events.warning(pool, "PoolInUse", "deletion waits: " + busy);
      return Duration.ofSeconds(10);
    }
    LockedEdit.edit(
        client,
        client.resources(AddressPool.class).withName(name),
        p -> {
          p.getMetadata().getFinalizers().remove(Sart.ADDRESS_POOL_FINALIZER);
          return p;
        });
    LOG.info("pool released name=" + name);
    return null;
  }

  private Duration reconcileRequest(String name) {
    var request = informers.get(BlockRequest.class, name);
    if (request == null
        || request.getSpec() == null
        || request.getMetadata().getDeletionTimestamp() != null) {
      return null;
    }
    var client = informers.client();
    var uid = request.getMetadata().getUid();
    var status = request.getStatus();
    if (status != null
        && status.block() != null
        && informers.get(AddressBlock.class, status.block()) != null) {
      return null;
    }
    var poolName = request.getSpec().pool();
    var pool = informers.get(AddressPool.class, poolName);
    if (pool == null) {
      // a pool created just before the request may not be in the cache yet: ask the API server
      // before answering with an error the agent would see
      pool = client.resources(AddressPool.class).withName(poolName).get();
    }
    String error = null;
    if (pool == null || pool.getSpec() == null) {
      error = "no AddressPool " + poolName;
    } else if (pool.getSpec().type() != AddressType.POD) {
      error = "AddressPool " + poolName + " is not a pod pool";
    } else if (pool.getMetadata().getDeletionTimestamp() != null) {
      error = "AddressPool " + poolName + " is being deleted";
    } else if (informers.get(Node.class, request.getSpec().node()) == null
        && client.nodes().withName(request.getSpec().node()).get() == null) {
      error = "no Node " + request.getSpec().node();
    }
    if (error != null) {
      answer(request, new BlockRequestStatus(null, error));
      return Duration.ofSeconds(10);
    }
    // authoritative list (our own recent creates may not be in the cache yet)
    var blocks =
        client.resources(AddressBlock.class).list().getItems().stream()
            .filter(b -> b.getSpec() != null && poolName.equals(b.getSpec().poolRef()))
            .toList();
    for (var block : blocks) {
      var annotations = block.getMetadata().getAnnotations();
      if (annotations != null
          && uid != null
          && uid.equals(annotations.get(REQUEST_UID_ANNOTATION))) {
        answer(request, new BlockRequestStatus(block.getMetadata().getName(), null));
        return null;
      }
    }
    var layout = new Blocks(IpPrefix.parseCidr(pool.getSpec().cidr()), blockSize(pool));
    var used = new TreeSet<BigInteger>();
    for (var block : blocks) {
      layout.indexOf(IpPrefix.parseCidr(block.getSpec().cidr())).ifPresent(used::add);
    }
    var free = layout.firstFree(used);
    if (free.isEmpty()) {
      answer(
          request,
          new BlockRequestStatus(
              null,
              "AddressPool " + poolName + " has no free block (" + layout.count() + " in use)"));
      events.warning(request, "PoolExhausted", "AddressPool " + poolName + " has no free block");
      return Duration.ofSeconds(10);
    }
    var index = free.get();
    var blockName = poolName + "-" + index;
    var spec =
        new AddressBlockSpec(
            layout.block(index).toString(),
            AddressType.POD,
            poolName,
            request.getSpec().node(),
            pool.getSpec().autoAssignOrFalse());
    try {
      createBlock(pool, blockName, spec, index, uid);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return Duration.ZERO; // someone took this index: look again
      }
      throw e;
    }
    answer(request, new BlockRequestStatus(blockName, null));
    events.normal(
        request,
        "BlockAssigned",
        "AddressBlock " + blockName + " (" + spec.cidr() + ") for node " + spec.nodeRef());
    LOG.info(
        "block assigned pool="
            + poolName
            + " node="
            + spec.nodeRef()
            + " block="
            + blockName
            + " cidr="
            + spec.cidr());
    return null;
  }

  private static int blockSize(AddressPool pool) {
    var cidr = IpPrefix.parseCidr(pool.getSpec().cidr());
    return pool.getSpec().blockSize() == null ? cidr.length() : pool.getSpec().blockSize();
  }

  private void createBlock(
      AddressPool pool, String name, AddressBlockSpec spec, BigInteger index, String requestUid) {
    var block = new AddressBlock(name, spec);
    var labels = new HashMap<String, String>();
    labels.put(Sart.ADDRESS_POOL_LABEL, pool.getMetadata().getName());
    if (spec.nodeRef() != null) {
      labels.put(Sart.ADDRESS_BLOCK_NODE_LABEL, spec.nodeRef());
    }
    block.getMetadata().setLabels(labels);
    if (requestUid != null) {
      block.getMetadata().setAnnotations(Map.of(REQUEST_UID_ANNOTATION, requestUid));
    }
    block
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion(Sart.API_VERSION)
                    .withKind("AddressPool")
                    .withName(pool.getMetadata().getName())
                    .withUid(pool.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build()));
    var client = informers.client();
    var created = client.resource(block).create();
    if (index != null) {
      client
          .resource(created)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON),
              Patches.setStatus(new AddressBlockStatus(index.longValueExact())));
    }
  }

  private void answer(BlockRequest request, BlockRequestStatus status) {
    if (status.equals(request.getStatus())) {
      return;
    }
    try {
      informers
          .client()
          .resource(request)
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON), Patches.setStatus(status));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e; // 404: the agent already deleted its request
      }
    }
  }

  private void collectBlocksOfGoneNodes() {
    var client = informers.client();
    for (var block : informers.list(AddressBlock.class)) {
      var spec = block.getSpec();
      if (spec == null
          || spec.type() != AddressType.POD
          || spec.nodeRef() == null
          || informers.get(Node.class, spec.nodeRef()) != null) {
        continue;
      }
      var resource = client.resources(AddressBlock.class).withName(block.getMetadata().getName());
      if (block.getMetadata().getFinalizers() != null
          && !block.getMetadata().getFinalizers().isEmpty()) {
        LockedEdit.edit(
            client,
            resource,
            b -> {
              b.getMetadata()
                  .getFinalizers()
                  .removeAll(
                      List.of(
                          Sart.ADDRESS_BLOCK_AGENT_FINALIZER,
                          Sart.ADDRESS_BLOCK_CONTROLLER_FINALIZER));
              return b;
            });
      }
      if (block.getMetadata().getDeletionTimestamp() == null) {
        resource.delete();
      }
      LOG.info(
          "block collected name="
              + block.getMetadata().getName()
              + " node="
              + spec.nodeRef()
              + " reason=node gone");
    }
  }

  /**
   * sart's {@code max_blocks} (2^(blockSize − prefix), not blockSize − prefix) and {@code
   * allocated_blocks}.
   */
  private void gauges(String pool) {
    if (!gauged.add(pool)) {
      return;
    }
    var registry = metrics.registry();
    meters.add(
        Gauge.builder(
                "sart.controller.max.blocks",
                informers,
                i -> {
                  var p = i.get(AddressPool.class, pool);
                  return p == null
                      ? 0
                      : new Blocks(IpPrefix.parseCidr(p.getSpec().cidr()), blockSize(p))
                          .count()
                          .doubleValue();
                })
            .tag("pool", pool)
            .tag("type", typeOf(pool))
            .description("blocks a pool can be cut into")
            .register(registry));
    meters.add(
        Gauge.builder("sart.controller.allocated.blocks", informers, i -> blocksOf(pool).size())
            .tag("pool", pool)
            .tag("type", typeOf(pool))
            .description("AddressBlocks of a pool")
            .register(registry));
  }

  private String typeOf(String pool) {
    var p = informers.get(AddressPool.class, pool);
    return p == null || p.getSpec() == null || p.getSpec().type() == null
        ? ""
        : p.getSpec().type() == AddressType.POD ? "pod" : "service";
  }

  @Override
  public void close() {
    loop.close();
    // the gauges read this term's caches: a new term registers its own
    meters.forEach(metrics.registry()::remove);
  }
}
