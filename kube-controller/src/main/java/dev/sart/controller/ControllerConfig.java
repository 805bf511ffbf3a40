package dev.sart.controller;

import dev.sart.crds.Sart;
import java.time.Duration;

/**
 * Settings of {@code sartd controller}.
 *
 * @param mode which reconcilers run
 * @param loadBalancerClass the {@code spec.loadBalancerClass} served besides none
 * @param leaderElection whether to take a Lease before reconciling (off: reconcile at once)
 * @param leaseNamespace namespace of the Lease
 * @param leaseName name of the Lease
 * @param identity this replica's name in the Lease (the pod name)
 * @param leaseDuration how long a leader's claim lasts without renewal
 * @param renewDeadline how long the leader keeps trying to renew before it gives up leading
 * @param retryPeriod how often candidates try
 * @param withdrawFromCordoned the peers of a cordoned node ({@code spec.unschedulable}, what {@code
 *     kubectl cordon} and {@code drain} set) withdraw every Service address, as those of a node
 *     labelled {@code node.kubernetes.io/exclude-from-external-load-balancers} always do
 */
public record ControllerConfig(
    Mode mode,
    String loadBalancerClass,
    boolean leaderElection,
    String leaseNamespace,
    String leaseName,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod,
    boolean withdrawFromCordoned) {

  public static ControllerConfig defaults(String identity) {
    return new ControllerConfig(
        Mode.DUAL,
        Sart.LOAD_BALANCER_CLASS,
        true,
        "kube-system",
        "sart-controller",
        identity,
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(2),
        false);
  }

  public ControllerConfig withLease(Duration duration, Duration renew, Duration retry) {
    return new ControllerConfig(
        mode,
        loadBalancerClass,
        leaderElection,
        leaseNamespace,
        leaseName,
        identity,
        duration,
        renew,
        retry,
        withdrawFromCordoned);
  }

  public ControllerConfig withMode(Mode m) {
    return new ControllerConfig(
        m,
        loadBalancerClass,
        leaderElection,
        leaseNamespace,
        leaseName,
        identity,
        leaseDuration,
        renewDeadline,
        retryPeriod,
        withdrawFromCordoned);
  }
}
