package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One BGP session of one node's speaker. Generated names: {@code <template>-<node>-<asn>-<addr>},
 * or {@code <node>-<asn>-<addr>} for an inline peerConfig; labelled {@code
 * bgppeer.sart.terassyi.net/node}.
 */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("bgppeers")
@AdditionalPrinterColumn(
    name = "ASN",
    jsonPath = ".spec.asn",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "ADDRESS",
    jsonPath = ".spec.addr",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "NODEBGP",
    jsonPath = ".spec.nodeBGPRef",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "CLUSTERBGP",
    jsonPath = ".spec.clusterBGPRef",
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
@ValidationRule(
    value = "self.spec.asn == oldSelf.spec.asn",
    message = "asn is immutable",
    fieldPath = ".spec.asn")
@ValidationRule(
    value =
        "has(self.spec.addr) == has(oldSelf.spec.addr) && (!has(self.spec.addr) || self.spec.addr == oldSelf.spec.addr)",
    message = "addr is immutable",
    fieldPath = ".spec.addr")
@ValidationRule(
    value =
        "has(self.spec.interface) == has(oldSelf.spec.interface) && (!has(self.spec.interface) || self.spec.interface == oldSelf.spec.interface)",
    message = "interface is immutable",
    fieldPath = ".spec.interface")
@ValidationRule(
    value = "self.spec.nodeBGPRef == oldSelf.spec.nodeBGPRef",
    message = "nodeBGPRef is immutable",
    fieldPath = ".spec.nodeBGPRef")
public class BGPPeer extends CustomResource<BGPPeerSpec, BGPPeerStatus> {
  public BGPPeer() {}

  public BGPPeer(String name, BGPPeerSpec spec) {
    getMetadata().setName(name);
    setSpec(spec);
  }
}
