package dev.sart.agent.bgp;

import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.logging.Logger;

/**
 * sart's {@code endpointslice.sart.terassyi.net/triggered-by} label (sart.md §6.2): when a BGPPeer
 * of this node becomes Established, the EndpointSlices are labelled with the peer's name, for tools
 * that read it (sart used it to wake its own EndpointSlice watcher; here the agent announces again
 * by itself when a session comes up). Unlike sart, which relabelled every EndpointSlice of the
 * cluster at every session start, only the slices of the Services whose advertisements target that
 * peer are written, and only when the label differs.
 */
final class EndpointSliceTrigger {
  private static final Logger LOG = Logger.getLogger(EndpointSliceTrigger.class.getName());

  private final KubernetesClient client;

  EndpointSliceTrigger(KubernetesClient client) {
    this.client = client;
  }

  /** Labels the slices of the Services announced to {@code peer}; errors are logged, not thrown. */
  void established(String peer) {
    try {
      Set<String> services = new LinkedHashSet<>();
      for (BGPAdvertisement a :
          client.resources(BGPAdvertisement.class).inAnyNamespace().list().getItems()) {
        var labels = a.getMetadata().getLabels();
        if (a.getSpec() == null
            || a.getSpec().type() != AddressType.SERVICE
            || labels == null
            || !labels.containsKey(Sart.SERVICE_NAME_LABEL)
            || a.getStatus() == null
            || a.getStatus().peers() == null
            || !a.getStatus().peers().containsKey(peer)) {
          continue;
        }
        services.add(a.getMetadata().getNamespace() + "/" + labels.get(Sart.SERVICE_NAME_LABEL));
      }
      int touched = 0;
      for (String key : services) {
        int slash = key.indexOf('/');
        var slices =
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(key.substring(0, slash))
                .withLabel(Sart.SERVICE_NAME_LABEL, key.substring(slash + 1))
                .list()
                .getItems();
        for (var slice : slices) {
          var labels = slice.getMetadata().getLabels();
          if (peer.equals(labels.get(Sart.ENDPOINTSLICE_TRIGGER_LABEL))) {
            continue;
          }
          try {
            client
                .resource(slice)
                .patch(
                    PatchContext.of(PatchType.JSON),
                    "[{\"op\":\"add\",\"path\":\"/metadata/labels/"
                        + Sart.ENDPOINTSLICE_TRIGGER_LABEL.replace("~", "~0").replace("/", "~1")
                        + "\",\"value\":"
                        + Serialization.asJson(peer)
                        + "}]");
            touched++;
          } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
              throw e;
            }
          }
        }
      }
      int n = touched;
      LOG.info(() -> "event=endpointslices-triggered peer=" + peer + " slices=" + n);
    } catch (KubernetesClientException e) {
      LOG.warning(() -> "event=endpointslices-trigger-failed peer=" + peer + " error=" + e);
    }
  }
}
