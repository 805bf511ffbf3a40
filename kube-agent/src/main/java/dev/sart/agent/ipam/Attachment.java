package dev.sart.agent.ipam;

import java.util.Objects;

/**
 * One network attachment of a container: the CNI spec identifies it by container id and interface
 * name (CNI spec §"Parameters": CNI_CONTAINERID, CNI_IFNAME).
 */
public record Attachment(String containerId, String ifname) {
  public Attachment {
    Objects.requireNonNull(containerId, "containerId");
    Objects.requireNonNull(ifname, "ifname");
  }

  @Override
  public String toString() {
    return containerId + "/" + ifname;
  }
}
