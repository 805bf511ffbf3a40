package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** The BGP settings of one node (named like the node, labels copied from it, owned by it). */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("nodebgps")
@AdditionalPrinterColumn(
    name = "ASN",
    jsonPath = ".spec.asn",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "ROUTERID",
    jsonPath = ".spec.routerId",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "BACKOFF",
    jsonPath = ".status.backoff",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "STATUS",
    jsonPath = ".status.conditions[-1:].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class NodeBGP extends CustomResource<NodeBGPSpec, NodeBGPStatus> {
  public NodeBGP() {}

  public NodeBGP(String name, NodeBGPSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
