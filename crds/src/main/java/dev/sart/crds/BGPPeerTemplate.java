package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** Peer settings a ClusterBGP refers to by name. */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("bgppeertemplates")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class BGPPeerTemplate extends CustomResource<BGPPeerTemplateSpec, BGPPeerTemplateStatus> {
  public BGPPeerTemplate() {}

  public BGPPeerTemplate(String name, BGPPeerTemplateSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
