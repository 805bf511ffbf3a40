package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A prefix to announce and, in the status, the peers it goes to with their state. Load-balancer
 * adverts live in the Service's namespace (one per address); pod-block adverts in {@code
 * kube-system}.
 */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("bgpadvertisements")
@AdditionalPrinterColumn(
    name = "CIDR",
    jsonPath = ".spec.cidr",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "TYPE",
    jsonPath = ".spec.type",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "PROTOCOL",
    jsonPath = ".spec.protocol",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class BGPAdvertisement extends CustomResource<BGPAdvertisementSpec, BGPAdvertisementStatus>
    implements Namespaced {
  public BGPAdvertisement() {}

  public BGPAdvertisement(String namespace, String name, BGPAdvertisementSpec spec) {
    getMetadata().setNamespace(namespace);
    getMetadata().setName(name);
    setSpec(spec);
  }
}
