package dev.sart.controller;

/** sart's {@code --mode}: which reconcilers run. */
public enum Mode {
  /** load-balancer: Service addresses, advertisements, BGP. */
  LB,
  /** pod networking: pod pools and blocks, BGP. */
  CNI,
  /** both. */
  DUAL;

  public boolean lb() {
    return this != CNI;
  }

  public boolean cni() {
    return this != LB;
  }
}
