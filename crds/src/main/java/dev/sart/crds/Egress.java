package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * An egress NAT gateway (coil's Egress, with KEP-0275's static source address): the controller runs
 * it as a Deployment and a Service of pods running {@code sartd egress}; client pods that name it
 * in an annotation {@code egress.sart.terassyi.net/<namespace>: <name>} send its {@code
 * destinations} through a tunnel to it. Namespaced; has the scale subresource (for a
 * HorizontalPodAutoscaler).
 */
@Group(Sart.GROUP)
@Version(Sart.VERSION)
@Plural("egresses")
@AdditionalPrinterColumn(
    name = "REPLICAS",
    jsonPath = ".status.replicas",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "ADDRESS",
    jsonPath = ".status.sourceAddress",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "GATEWAY",
    jsonPath = ".status.gateway",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class Egress extends CustomResource<EgressSpec, EgressStatus> implements Namespaced {
  public Egress() {}

  public Egress(String namespace, String name, EgressSpec spec) {
    getMetadata().setNamespace(namespace);
    getMetadata().setName(name);
    setSpec(spec);
  }
}
