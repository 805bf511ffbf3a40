package dev.sart.fib.netlink;

/**
 * rtnetlink for one network namespace: links, addresses, routes, rules, neighbours, and batches of
 * changes. One socket underneath; calls from several threads are serialised.
 *
 * <pre>{@code
 * try (Netns ns = Netns.named("blue"); Netlink nl = Netlink.open(ns)) {
 *   nl.links().setUp("eth0");
 *   nl.routes().add(Route.of("192.0.2.0/24").table(120).via("198.51.100.1").build());
 * }
 * }</pre>
 */
public final class Netlink implements AutoCloseable {
  private final NetlinkSocket socket;
  private final Links links;
  private final Addresses addresses;
  private final Routes routes;
  private final Rules rules;
  private final Neighbors neighbors;

  Netlink(NetlinkSocket socket) {
    this.socket = socket;
    this.links = new Links(socket);
    this.addresses = new Addresses(socket);
    this.routes = new Routes(socket);
    this.rules = new Rules(socket);
    this.neighbors = new Neighbors(socket);
  }

  /** rtnetlink in the calling thread's network namespace. */
  public static Netlink open() {
    return new Netlink(NetlinkSocket.open());
  }

  /** rtnetlink in {@code ns}: the socket is opened inside it (see {@link Netns#run}). */
  public static Netlink open(Netns ns) {
    return ns.run(Netlink::open);
  }

  public Links links() {
    return links;
  }

  public Addresses addresses() {
    return addresses;
  }

  public Routes routes() {
    return routes;
  }

  public Rules rules() {
    return rules;
  }

  public Neighbors neighbors() {
    return neighbors;
  }

  /**
   * Sends one message built elsewhere (a whole {@code struct nlmsghdr} and body, e.g. a link kind
   * this library has no codec for) with NLM_F_ACK and waits for its acknowledgement; the socket
   * stamps its own sequence number over the message's.
   *
   * @throws NetlinkException with {@code description} and the kernel's errno and extended ack
   */
  public void execute(byte[] message, String description) {
    socket.execute(Request.raw(message, description));
  }

  /** An empty batch of changes for this namespace. */
  public Batch batch() {
    return new Batch(socket);
  }

  /**
   * Dumps started over because the kernel flagged them NLM_F_DUMP_INTR, since this socket opened.
   */
  public long dumpRetries() {
    return socket.dumpRetries();
  }

  @Override
  public void close() {
    socket.close();
  }
}
