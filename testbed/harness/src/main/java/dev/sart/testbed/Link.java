package dev.sart.testbed;

/**
 * A veth pair between two nodes: {@code aName} is the interface in {@code a}, {@code bName} the one
 * in {@code b}. Both ends are up when the link is returned.
 */
public record Link(Node a, String aName, Node b, String bName) {

  /** Puts an address on each end, e.g. {@code addresses("192.0.2.1/30", "192.0.2.2/30")}. */
  public Link addresses(String aCidr, String bCidr) {
    a.address(aName, aCidr);
    b.address(bName, bCidr);
    return this;
  }
}
