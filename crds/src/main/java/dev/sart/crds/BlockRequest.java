package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A node agent's request for one more block of a pod pool; named {@code <pool>-<node>} by the
 * agent.
 */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("blockrequests")
@AdditionalPrinterColumn(
    name = "POOL",
    jsonPath = ".spec.pool",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "NODE",
    jsonPath = ".spec.node",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class BlockRequest extends CustomResource<BlockRequestSpec, BlockRequestStatus> {
  public BlockRequest() {}

  public BlockRequest(String name, BlockRequestSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
