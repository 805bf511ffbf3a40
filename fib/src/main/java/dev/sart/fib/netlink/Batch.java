package dev.sart.fib.netlink;

import java.util.ArrayList;
import java.util.List;

/**
 * Many changes sent together: requests go to the kernel many per sendmsg and are acknowledged per
 * chunk, so a batch costs a few system calls per thousand changes. The kernel applies them in order
 * and one failing does not stop the others; {@link BatchResult} says which failed.
 *
 * <pre>{@code
 * Batch b = nl.batch();
 * routes.forEach(b::addRoute);
 * b.execute().throwIfFailed();
 * }</pre>
 */
public final class Batch {
  private final NetlinkSocket socket;
  private final List<Request> requests = new ArrayList<>();

  Batch(NetlinkSocket socket) {
    this.socket = socket;
  }

  public Batch addRoute(Route r) {
    return add(Routes.addRequest(r));
  }

  public Batch replaceRoute(Route r) {
    return add(Routes.replaceRequest(r));
  }

  public Batch deleteRoute(Route r) {
    return add(Routes.deleteRequest(r));
  }

  public Batch addAddress(Address a) {
    return add(Addresses.addRequest(a, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL, "add"));
  }

  public Batch deleteAddress(Address a) {
    return add(Addresses.deleteRequest(a));
  }

  public Batch addNeighbor(Neighbor n) {
    return add(Neighbors.addRequest(n, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL, "add"));
  }

  public Batch replaceNeighbor(Neighbor n) {
    return add(Neighbors.addRequest(n, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_REPLACE, "replace"));
  }

  public Batch deleteNeighbor(Neighbor n) {
    return add(Neighbors.deleteRequest(n));
  }

  public Batch addRule(Rule r) {
    return add(Rules.addRequest(r));
  }

  public Batch deleteRule(Rule r) {
    return add(Rules.deleteRequest(r));
  }

  private Batch add(Request r) {
    requests.add(r);
    return this;
  }

  /** Requests added and not yet executed. */
  public int size() {
    return requests.size();
  }

  /** Sends every request added, in order, and empties the batch. */
  public BatchResult execute() {
    List<Request> all = List.copyOf(requests);
    requests.clear();
    return socket.batch(all);
  }
}
