package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One block of a pool: for a service pool the whole pool; for a pod pool a {@code blockSize} piece
 * given to one node ({@code nodeRef}), labelled with the pool and the node, owned by the pool.
 */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("addressblocks")
@AdditionalPrinterColumn(
    name = "CIDR",
    jsonPath = ".spec.cidr",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "TYPE",
    jsonPath = ".spec.type",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "POOLREF",
    jsonPath = ".spec.poolRef",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "NODEREF",
    jsonPath = ".spec.nodeRef",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class AddressBlock extends CustomResource<AddressBlockSpec, AddressBlockStatus> {
  public AddressBlock() {}

  public AddressBlock(String name, AddressBlockSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
