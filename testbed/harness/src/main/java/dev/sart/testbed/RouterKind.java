package dev.sart.testbed;

import java.util.function.BiFunction;

/** The routing daemons the test bed can run, each with its driver. */
public enum RouterKind {
  BIRD(Bird::new),
  FRR(Frr::new),
  GOBGP(GoBgp::new),
  OPENBGPD(OpenBgpd::new),
  EXABGP(ExaBgp::new);

  private final BiFunction<Node, RouterConfig, Router> driver;

  RouterKind(BiFunction<Node, RouterConfig, Router> driver) {
    this.driver = driver;
  }

  /** A driver for this daemon in {@code node}; call {@link Router#start()} to run it. */
  public Router create(Node node, RouterConfig config) {
    return driver.apply(node, config);
  }
}
