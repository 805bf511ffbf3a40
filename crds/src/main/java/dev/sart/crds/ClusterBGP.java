package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** BGP for a set of nodes: one NodeBGP per matching node and the BGPPeers each one gets. */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("clusterbgps")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ClusterBGP extends CustomResource<ClusterBGPSpec, ClusterBGPStatus> {
  public ClusterBGP() {}

  public ClusterBGP(String name, ClusterBGPSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
