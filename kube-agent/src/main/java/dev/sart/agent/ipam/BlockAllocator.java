package dev.sart.agent.ipam;

import dev.sart.fib.netlink.Family;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Addresses from this node's blocks, per pool and family. Pure: no I/O, one lock.
 *
 * <p>Addresses are not reused at once: each pool keeps a cursor after the last address given and
 * searches forward from it, wrapping around, so a released address comes back only after the rest
 * of the pool has been used (coil#232: an address reused at once meets stale conntrack entries and
 * caches). A block never gives its IPv4 network and broadcast addresses (sart handed out the
 * network address) nor the IPv6 Subnet-Router anycast address (RFC 4291 §2.6.1), except in blocks
 * too small to have them (/31, RFC 3021; /32; /128).
 */
public final class BlockAllocator implements Ipam {
  /** The largest number of addresses looked at in one block: IPv6 blocks may be huge. */
  static final long MAX_BLOCK_ADDRESSES = 1L << 32;

  private final Map<String, Pool> pools = new LinkedHashMap<>();
  private final Map<Attachment, Allocation> allocations = new HashMap<>();
  private final String defaultPool;

  /**
   * @param defaultPool the pool used when a request names none (AddressPool {@code autoAssign}), or
   *     null
   */
  public BlockAllocator(Collection<Block> blocks, String defaultPool) {
    this.defaultPool = defaultPool;
    blocks.forEach(this::addBlock);
  }

  /** Adds a block (an AddressBlock assigned to this node); a block it has already is ignored. */
  public synchronized void addBlock(Block b) {
    for (Pool p : pools.values()) {
      for (BlockState s : p.blocks) {
        if (s.block.cidr().contains(b.cidr().address())
            || b.cidr().contains(s.block.cidr().address())) {
          if (s.block.equals(b)) {
            return;
          }
          throw new IllegalArgumentException(
              "block "
                  + b.pool()
                  + "="
                  + b.cidr()
                  + " overlaps "
                  + s.block.pool()
                  + "="
                  + s.block.cidr());
        }
      }
    }
    pools.computeIfAbsent(b.pool(), Pool::new).blocks.add(new BlockState(b));
  }

  public synchronized List<Block> blocks() {
    List<Block> out = new ArrayList<>();
    pools.values().forEach(p -> p.blocks.forEach(s -> out.add(s.block)));
    return out;
  }

  @Override
  public String defaultPool() {
    return defaultPool;
  }

  @Override
  public synchronized Allocation allocate(String pool, Attachment attachment) throws IpamException {
    Allocation existing = allocations.get(attachment);
    if (existing != null) {
      if (!existing.pool().equals(pool)) {
        throw new IpamException(
            attachment + " has addresses from pool " + existing.pool() + " already, not " + pool);
      }
      return existing;
    }
    // one pool, or one per family ("pool4,pool6": dual-stack pods from single-family pools)
    List<InetAddress> given = new ArrayList<>();
    Map<Family, String> from = new java.util.EnumMap<>(Family.class);
    for (String name : names(pool)) {
      Pool p = pools.get(name);
      if (p == null) {
        free(given);
        throw new IpamException("no block of pool " + name + " on this node");
      }
      for (Family f : p.families()) {
        String other = from.put(f, name);
        if (other != null) {
          free(given);
          throw new IpamException(
              "pools "
                  + other
                  + " and "
                  + name
                  + " both give "
                  + (f == Family.INET ? "IPv4" : "IPv6")
                  + " addresses: a pod takes one pool per family");
        }
        InetAddress a = p.next(f);
        if (a == null) {
          free(given);
          throw new IpamException(
              "pool "
                  + name
                  + " has no free "
                  + (f == Family.INET ? "IPv4" : "IPv6")
                  + " address left in this node's blocks "
                  + p.cidrs(f));
        }
        given.add(a);
      }
    }
    Allocation allocation = new Allocation(attachment, pool, given);
    allocations.put(attachment, allocation);
    return allocation;
  }

  @Override
  public synchronized Optional<Allocation> find(Attachment attachment) {
    return Optional.ofNullable(allocations.get(attachment));
  }

  @Override
  public synchronized Optional<Allocation> release(Attachment attachment) {
    Allocation a = allocations.remove(attachment);
    if (a == null) {
      return Optional.empty();
    }
    free(a.addresses());
    return Optional.of(a);
  }

  @Override
  public synchronized void restore(Allocation allocation) throws IpamException {
    Allocation existing = allocations.get(allocation.attachment());
    if (existing != null) {
      if (existing.equals(allocation)) {
        return;
      }
      throw new IpamException(
          allocation.attachment() + " is restored twice: " + existing + " and " + allocation);
    }
    for (String name : names(allocation.pool())) {
      if (!pools.containsKey(name)) {
        throw new IpamException(
            "pool " + name + " of " + allocation.attachment() + " has no block here");
      }
    }
    for (InetAddress a : allocation.addresses()) {
      BlockState s = blockOf(allocation.pool(), a);
      if (s == null) {
        throw new IpamException(
            Ip.format(a)
                + " of "
                + allocation.attachment()
                + " is in no block of pool "
                + allocation.pool());
      }
      if (s.used.contains(s.offset(a))) {
        throw new IpamException(
            Ip.format(a) + " of " + allocation.attachment() + " is taken twice");
      }
    }
    for (InetAddress a : allocation.addresses()) {
      poolOf(allocation.pool(), a).take(a);
    }
    allocations.put(allocation.attachment(), allocation);
  }

  @Override
  public synchronized List<Allocation> allocations() {
    return List.copyOf(allocations.values());
  }

  @Override
  public synchronized Map<String, Usage> usage() {
    Map<String, Usage> out = new LinkedHashMap<>();
    for (Pool p : pools.values()) {
      long addresses = 0;
      long inUse = 0;
      for (BlockState s : p.blocks) {
        addresses += s.usable();
        inUse += s.used.size();
      }
      out.put(p.name, new Usage(addresses, inUse));
    }
    return out;
  }

  @Override
  public synchronized boolean hasFree(String pool) {
    return names(pool).stream().allMatch(this::hasFreeIn);
  }

  private boolean hasFreeIn(String pool) {
    Pool p = pools.get(pool);
    return p != null
        && p.families().stream()
            .allMatch(
                f ->
                    p.blocks.stream()
                        .anyMatch(
                            s -> Family.of(s.block.cidr()) == f && s.used.size() < s.usable()));
  }

  /** The pool names of an allocation: one, or one per family, comma-separated. */
  public static List<String> names(String pool) {
    return java.util.Arrays.stream(pool.split(",")).map(String::strip).toList();
  }

  /** Gives addresses back to whichever pool's block holds them. */
  private void free(List<InetAddress> addresses) {
    for (InetAddress a : addresses) {
      for (Pool p : pools.values()) {
        p.free(a);
      }
    }
  }

  private Pool poolOf(String names, InetAddress a) {
    for (String name : names(names)) {
      Pool p = pools.get(name);
      if (p != null && p.blockOf(a) != null) {
        return p;
      }
    }
    return null;
  }

  private BlockState blockOf(String names, InetAddress a) {
    Pool p = poolOf(names, a);
    return p == null ? null : p.blockOf(a);
  }

  /** The blocks of one pool and its cursor per family. */
  private static final class Pool {
    final String name;
    final List<BlockState> blocks = new ArrayList<>();
    final Map<Family, Integer> cursorBlock = new HashMap<>();

    Pool(String name) {
      this.name = name;
    }

    List<Family> families() {
      Set<Family> fs = new HashSet<>();
      blocks.forEach(b -> fs.add(Family.of(b.block.cidr())));
      List<Family> out = new ArrayList<>();
      for (Family f : List.of(Family.INET, Family.INET6)) {
        if (fs.contains(f)) {
          out.add(f);
        }
      }
      return out;
    }

    List<IpPrefix> cidrs(Family f) {
      return blocks.stream().map(b -> b.block.cidr()).filter(c -> Family.of(c) == f).toList();
    }

    /**
     * The next free address after the cursor: the rest of the cursor's block, then the other blocks
     * of {@code f} in order, then the cursor's block from its start (the whole pool is one ring).
     */
    InetAddress next(Family f) {
      List<BlockState> of = blocks.stream().filter(b -> Family.of(b.block.cidr()) == f).toList();
      int start = cursorBlock.getOrDefault(f, 0) % of.size();
      BlockState cur = of.get(start);
      long o = cur.scan(cur.cursor < cur.first ? cur.first : cur.cursor + 1, cur.last);
      if (o >= 0) {
        return give(f, start, cur, o);
      }
      for (int i = 1; i < of.size(); i++) {
        int idx = (start + i) % of.size();
        BlockState s = of.get(idx);
        o = s.scan(s.first, s.last);
        if (o >= 0) {
          return give(f, idx, s, o);
        }
      }
      o = cur.scan(cur.first, Math.min(cur.cursor, cur.last));
      return o >= 0 ? give(f, start, cur, o) : null;
    }

    private InetAddress give(Family f, int idx, BlockState s, long o) {
      cursorBlock.put(f, idx);
      s.used.add(o);
      s.cursor = o;
      return s.address(o);
    }

    BlockState blockOf(InetAddress a) {
      for (BlockState s : blocks) {
        if (s.block.cidr().contains(a)) {
          return s;
        }
      }
      return null;
    }

    void free(InetAddress a) {
      BlockState s = blockOf(a);
      if (s != null) {
        s.used.remove(s.offset(a));
      }
    }

    void take(InetAddress a) {
      BlockState s = blockOf(a);
      long o = s.offset(a);
      s.used.add(o);
      // after a restart the cursor resumes after the highest address in use
      if (s.cursor < o) {
        s.cursor = o;
        cursorBlock.put(
            Family.of(s.block.cidr()),
            blocks.stream()
                .filter(b -> Family.of(b.block.cidr()) == Family.of(s.block.cidr()))
                .toList()
                .indexOf(s));
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** One block: the offsets in use and the last one given. */
  private static final class BlockState {
    final Block block;
    final BigInteger base;
    final long size;
    final long first;
    final long last;
    final Set<Long> used = new HashSet<>();
    long cursor = -1;

    BlockState(Block block) {
      this.block = block;
      IpPrefix c = block.cidr();
      int hostBits = Family.of(c).maxPrefixLength() - c.length();
      this.base = new BigInteger(1, c.address().getAddress());
      this.size = hostBits >= 32 ? MAX_BLOCK_ADDRESSES : 1L << hostBits;
      if (Family.of(c) == Family.INET) {
        // RFC 3021 (/31) and /32 have no network or broadcast address
        this.first = hostBits >= 2 ? 1 : 0;
        this.last = hostBits >= 2 ? size - 2 : size - 1;
      } else {
        // RFC 4291 §2.6.1: offset 0 is the Subnet-Router anycast address
        this.first = hostBits >= 1 ? 1 : 0;
        this.last = size - 1;
      }
    }

    long usable() {
      return last - first + 1;
    }

    /** The first free offset in [from, to], or -1. */
    long scan(long from, long to) {
      if (used.size() >= usable()) {
        return -1;
      }
      for (long o = from; o <= to; o++) {
        if (!used.contains(o)) {
          return o;
        }
      }
      return -1;
    }

    long offset(InetAddress a) {
      return new BigInteger(1, a.getAddress()).subtract(base).longValueExact();
    }

    InetAddress address(long offset) {
      byte[] raw = base.add(BigInteger.valueOf(offset)).toByteArray();
      int len = Family.of(block.cidr()) == Family.INET ? 4 : 16;
      byte[] b = new byte[len];
      int copy = Math.min(raw.length, len);
      System.arraycopy(raw, raw.length - copy, b, len - copy, copy);
      try {
        return InetAddress.getByAddress(b);
      } catch (UnknownHostException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
