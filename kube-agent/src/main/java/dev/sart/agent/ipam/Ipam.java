package dev.sart.agent.ipam;

import java.util.List;
import java.util.Optional;

/**
 * Pod address management as the CNI server needs it. Implementations are thread-safe; an attachment
 * holds at most one allocation.
 */
public interface Ipam {
  /**
   * Gives {@code attachment} one address per family the pool's blocks have; returns the existing
   * allocation when the attachment has one already (a repeated ADD).
   */
  Allocation allocate(String pool, Attachment attachment) throws IpamException;

  Optional<Allocation> find(Attachment attachment);

  /** Frees the attachment's addresses; empty when it had none. */
  Optional<Allocation> release(Attachment attachment);

  /** Marks an allocation found in the kernel at start-up as taken. */
  void restore(Allocation allocation) throws IpamException;

  List<Allocation> allocations();

  /** The pool used when the configuration names none, or null. */
  String defaultPool();

  /**
   * How many addresses a pool's blocks on this node can give and how many are in use.
   *
   * @param addresses usable addresses of this node's blocks of the pool
   * @param inUse addresses allocated to pods
   */
  record Usage(long addresses, long inUse) {}

  /** Per pool of this node's blocks, its {@link Usage}; empty when unknown. */
  default java.util.Map<String, Usage> usage() {
    return java.util.Map.of();
  }

  /** Whether an ADD could get an address from {@code pool} now (CNI STATUS). */
  boolean hasFree(String pool);

  /**
   * The pool of a pod: {@code configured} (the network configuration's {@code pool}) or the
   * default; an implementation that knows the cluster also looks at the pod's and its namespace's
   * annotations ({@code cniArgs} holds K8S_POD_NAMESPACE and K8S_POD_NAME). Null when there is
   * none.
   */
  default String poolFor(java.util.Map<String, String> cniArgs, String configured) {
    return configured != null ? configured : defaultPool();
  }
}
