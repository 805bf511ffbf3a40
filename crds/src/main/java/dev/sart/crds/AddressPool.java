package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A range of addresses for Services ({@code type: service}) or for pods, cut into blocks ({@code
 * type: pod}).
 */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("addresspools")
@AdditionalPrinterColumn(
    name = "CIDR",
    jsonPath = ".spec.cidr",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "TYPE",
    jsonPath = ".spec.type",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "BLOCKSIZE",
    jsonPath = ".spec.blockSize",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "AUTO",
    jsonPath = ".spec.autoAssign",
    type = AdditionalPrinterColumn.Type.BOOLEAN)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class AddressPool extends CustomResource<AddressPoolSpec, AddressPoolStatus> {
  public AddressPool() {}

  public AddressPool(String name, AddressPoolSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
