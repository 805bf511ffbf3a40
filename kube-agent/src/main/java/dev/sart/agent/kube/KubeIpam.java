package dev.sart.agent.kube;

import dev.sart.agent.ipam.Allocation;
import dev.sart.agent.ipam.Attachment;
import dev.sart.agent.ipam.Block;
import dev.sart.agent.ipam.BlockAllocator;
import dev.sart.agent.ipam.Ipam;
import dev.sart.agent.ipam.IpamException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Pod IPAM over this node's AddressBlocks: the {@link BlockAllocator} (addresses, no immediate
 * reuse) fed from the API server through {@link BlockSource}. When the node has no block of the
 * pool with a free address, a block is requested and the ADD waits for it; when a release leaves a
 * block with no pod, the block is given back. Each block is announced as one BGPAdvertisement.
 */
public final class KubeIpam implements Ipam {
  private static final Logger LOG = Logger.getLogger(KubeIpam.class.getName());

  private final BlockSource source;
  private final PoolSelector pools;
  private BlockAllocator allocator;

  /** One block request per pool at a time. */
  private final Object requesting = new Object();

  public KubeIpam(BlockSource source, PoolSelector pools) {
    this.source = source;
    this.pools = pools;
    this.allocator = new BlockAllocator(source.blocks(), null);
    source.advertise();
  }

  private synchronized BlockAllocator allocator() {
    return allocator;
  }

  @Override
  public java.util.Map<String, Usage> usage() {
    return allocator().usage();
  }

  /**
   * Adds the blocks assigned to this node since the last look (e.g. at start-up or after a
   * request).
   */
  public synchronized void refresh() {
    for (Block b : source.blocks()) {
      allocator.addBlock(b);
    }
  }

  @Override
  public Allocation allocate(String pool, Attachment attachment) throws IpamException {
    Optional<Allocation> existing = allocator().find(attachment);
    if (existing.isPresent() || allocator().hasFree(pool)) {
      synchronized (this) {
        return allocator.allocate(pool, attachment);
      }
    }
    // a dual-stack pod names one pool per family ("pool4,pool6"): a block of each as needed
    for (String name : BlockAllocator.names(pool)) {
      synchronized (requesting) {
        if (!allocator().hasFree(name)) {
          Optional<Block> got;
          try {
            got = source.request(name, new HashSet<>(allocator().blocks()));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IpamException("interrupted while waiting for a block of pool " + name);
          }
          if (got.isEmpty()) {
            throw new IpamException(
                "no block of pool " + name + " with a free address on this node yet (requested)",
                true);
          }
          synchronized (this) {
            allocator.addBlock(got.get());
          }
          source.advertise();
        }
      }
    }
    synchronized (this) {
      return allocator.allocate(pool, attachment);
    }
  }

  @Override
  public Optional<Allocation> find(Attachment attachment) {
    return allocator().find(attachment);
  }

  /**
   * Frees the addresses; a block left with no allocation is given back (sart: DEL deletes an empty
   * block).
   */
  @Override
  public synchronized Optional<Allocation> release(Attachment attachment) {
    Optional<Allocation> released = allocator.release(attachment);
    released.ifPresent(
        a -> {
          for (Block b : blocksOf(a)) {
            boolean empty =
                allocator.allocations().stream()
                    .flatMap(x -> x.addresses().stream())
                    .noneMatch(x -> b.cidr().contains(x));
            if (empty) {
              source.release(b);
              rebuildWithout(b);
            }
          }
        });
    return released;
  }

  private List<Block> blocksOf(Allocation a) {
    List<Block> out = new ArrayList<>();
    for (Block b : allocator.blocks()) {
      for (InetAddress x : a.addresses()) {
        if (b.cidr().contains(x) && !out.contains(b)) {
          out.add(b);
        }
      }
    }
    return out;
  }

  /**
   * The allocator has no way to drop a block: a new one over the other blocks takes the allocations
   * over.
   */
  private void rebuildWithout(Block gone) {
    List<Block> rest = new ArrayList<>(allocator.blocks());
    rest.remove(gone);
    BlockAllocator next = new BlockAllocator(rest, null);
    for (Allocation a : allocator.allocations()) {
      try {
        next.restore(a);
      } catch (IpamException e) {
        throw new IllegalStateException(
            "allocation " + a + " lost moving off block " + gone.cidr(), e);
      }
    }
    allocator = next;
    LOG.info(() -> "event=block-dropped pool=" + gone.pool() + " cidr=" + gone.cidr());
  }

  @Override
  public void restore(Allocation allocation) throws IpamException {
    allocator().restore(allocation);
  }

  @Override
  public List<Allocation> allocations() {
    return allocator().allocations();
  }

  /** The auto-assign pod pool, from the AddressPools. */
  @Override
  public String defaultPool() {
    return pools.autoAssign();
  }

  /**
   * A free address in this node's blocks, or a pod AddressPool of that name to request a block
   * from.
   */
  @Override
  public boolean hasFree(String pool) {
    return BlockAllocator.names(pool).stream()
        .allMatch(name -> allocator().hasFree(name) || pools.isPodPool(name));
  }

  /** The pool for a pod: pod annotation, namespace annotation, configuration, auto-assign pool. */
  @Override
  public String poolFor(java.util.Map<String, String> cniArgs, String configured) {
    return pools.pool(cniArgs, configured);
  }
}
