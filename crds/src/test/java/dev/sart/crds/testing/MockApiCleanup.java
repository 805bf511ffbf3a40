package dev.sart.crds.testing;

import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.NodeBGP;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Empties a mock API server shared by the tests of one class: no agent runs any more to remove its
 * finalizers, so they are cleared before the objects are deleted.
 */
public final class MockApiCleanup {
  private MockApiCleanup() {}

  /**
   * Deletes every BGPAdvertisement, BGPPeer and NodeBGP (the last two carry the agent's finalizer).
   */
  public static void deleteBgpObjects(KubernetesClient client) {
    client.resources(BGPAdvertisement.class).inAnyNamespace().delete();
    for (BGPPeer p : client.resources(BGPPeer.class).list().getItems()) {
      client.resource(p).edit(MockApiCleanup::withoutFinalizers);
    }
    client.resources(BGPPeer.class).delete();
    for (NodeBGP n : client.resources(NodeBGP.class).list().getItems()) {
      client.resource(n).edit(MockApiCleanup::withoutFinalizers);
    }
    client.resources(NodeBGP.class).delete();
  }

  /**
   * Deletes what pod IPAM wrote and read: every AddressBlock, BlockRequest, BGPAdvertisement,
   * AddressPool and pod.
   */
  public static void deleteIpamObjects(KubernetesClient client) {
    client.resources(AddressBlock.class).delete();
    client.resources(BlockRequest.class).delete();
    client.resources(BGPAdvertisement.class).inAnyNamespace().delete();
    client.resources(AddressPool.class).delete();
    client.pods().inAnyNamespace().delete();
  }

  private static <T extends HasMetadata> T withoutFinalizers(T o) {
    o.getMetadata().getFinalizers().clear();
    return o;
  }
}
