package dev.sart.controller.ipam;

import dev.sart.net.IpPrefix;
import java.math.BigInteger;
import java.util.Optional;
import java.util.SortedSet;

/**
 * Block arithmetic of a pod pool: a pool {@code cidr} of prefix length p cut into blocks of prefix
 * length {@code blockSize} holds 2^(blockSize − p) blocks; block i starts i × 2^(bits − blockSize)
 * after the pool's network address. (sart computed the stride with {@code ^}, XOR, which is right
 * for a few sizes only, and reported blockSize − p as the block count.)
 */
public record Blocks(IpPrefix pool, int blockSize) {
  public Blocks {
    if (blockSize < pool.length() || blockSize > pool.addressBits()) {
      throw new IllegalArgumentException(
          "blockSize " + blockSize + " outside " + pool.length() + ".." + pool.addressBits());
    }
  }

  /** 2^(blockSize − prefix length). */
  public BigInteger count() {
    return BigInteger.ONE.shiftLeft(blockSize - pool.length());
  }

  /** Addresses per block: 2^(bits − blockSize). */
  public BigInteger stride() {
    return BigInteger.ONE.shiftLeft(pool.addressBits() - blockSize);
  }

  public IpPrefix block(BigInteger index) {
    if (index.signum() < 0 || index.compareTo(count()) >= 0) {
      throw new IllegalArgumentException(
          "block index " + index + " outside 0.." + count().subtract(BigInteger.ONE));
    }
    return new IpPrefix(pool.addressAt(index.multiply(stride())), blockSize);
  }

  /** The index of {@code block} in this pool, if it is one of its blocks. */
  public Optional<BigInteger> indexOf(IpPrefix block) {
    if (block.length() != blockSize || !pool.contains(block.address())) {
      return Optional.empty();
    }
    return Optional.of(pool.offsetOf(block.address()).divide(stride()));
  }

  /** The lowest index not in {@code used}. */
  public Optional<BigInteger> firstFree(SortedSet<BigInteger> used) {
    var candidate = BigInteger.ZERO;
    for (var index : used) {
      if (index.compareTo(candidate) > 0) {
        break;
      }
      if (index.equals(candidate)) {
        candidate = candidate.add(BigInteger.ONE);
      }
    }
    return candidate.compareTo(count()) < 0 ? Optional.of(candidate) : Optional.empty();
  }
}
