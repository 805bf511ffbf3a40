package dev.sart.crds;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Generates the CRD YAML of the eight kinds with fabric8's CRD generator. */
final class CrdYaml {
  private CrdYaml() {}

  static final List<Class<? extends HasMetadata>> KINDS =
      List.of(
          AddressPool.class,
          AddressBlock.class,
          BlockRequest.class,
          ClusterBGP.class,
          NodeBGP.class,
          BGPPeer.class,
          BGPPeerTemplate.class,
          BGPAdvertisement.class,
          Egress.class);

  /** The checked-in copies, relative to the module directory (the tests' working directory). */
  static final Path CHECKED_IN = Path.of("manifests");

  /** Writes one {@code <plural>.sart.terassyi.net-v1.yml} per kind into {@code dir}. */
  static void generate(Path dir) {
    new CRDGenerator()
        .customResourceClasses(KINDS)
        .forCRDVersions("v1")
        .withParallelGenerationEnabled(false)
        .withPostProcessor(new DeclaredColumnOrder())
        .withPostProcessor(new NoDuplicateRules())
        .inOutputDir(dir.toFile())
        .generate();
  }

  /**
   * The generator (7.5.2) reads a {@code @ValidationRule} on a record component twice, from the
   * field and from its accessor; keep each rule of a property once.
   */
  private static final class NoDuplicateRules implements CRDPostProcessor {
    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
      for (var version : ((CustomResourceDefinition) crd).getSpec().getVersions()) {
        dedupe(version.getSchema().getOpenAPIV3Schema());
      }
      return crd;
    }

    private static void dedupe(JSONSchemaProps schema) {
      if (schema == null) {
        return;
      }
      if (schema.getXKubernetesValidations() != null) {
        schema.setXKubernetesValidations(
            new ArrayList<>(new LinkedHashSet<>(schema.getXKubernetesValidations())));
      }
      if (schema.getProperties() != null) {
        schema.getProperties().values().forEach(NoDuplicateRules::dedupe);
      }
      if (schema.getItems() != null) {
        dedupe(schema.getItems().getSchema());
      }
      if (schema.getAdditionalProperties() != null) {
        dedupe(schema.getAdditionalProperties().getSchema());
      }
    }
  }

  /**
   * The generator sorts printer columns by name; kubectl shows them in the CRD's order, so put them
   * back in the order the class declares them (sart's order: CIDR, TYPE, ..., AGE).
   */
  private static final class DeclaredColumnOrder implements CRDPostProcessor {
    private static final Map<String, Class<?>> BY_KIND =
        KINDS.stream().collect(Collectors.toMap(Class::getSimpleName, Function.identity()));

    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
      var definition = (CustomResourceDefinition) crd;
      var type = BY_KIND.get(definition.getSpec().getNames().getKind());
      List<String> order =
          Arrays.stream(type.getAnnotationsByType(AdditionalPrinterColumn.class))
              .map(AdditionalPrinterColumn::name)
              .toList();
      for (CustomResourceDefinitionVersion version : definition.getSpec().getVersions()) {
        if (version.getAdditionalPrinterColumns() != null) {
          version
              .getAdditionalPrinterColumns()
              .sort(
                  Comparator.comparingInt(
                      (CustomResourceColumnDefinition c) -> order.indexOf(c.getName())));
        }
      }
      return crd;
    }
  }
}
