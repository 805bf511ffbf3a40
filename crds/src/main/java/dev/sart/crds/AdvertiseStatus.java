package dev.sart.crds;

/**
 * Per-peer state of a BGPAdvertisement: the controller writes NotAdvertised (to announce) and
 * Withdraw (to take back); the agent moves NotAdvertised to Advertised and removes a withdrawn
 * entry.
 */
public enum AdvertiseStatus {
  NotAdvertised,
  Advertised,
  Withdraw
}
