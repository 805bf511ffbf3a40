package dev.sart.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The CLI knows only the APIs (DESIGN.md §2): the daemons' gRPC API and, for {@code sart explain},
 * the Kubernetes API through the custom resources' classes of {@code crds}.
 */
@AnalyzeClasses(packages = "dev.sart.cli", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule knowsOnlyTheApi =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.sart.bgp..",
              "dev.sart.fib..",
              "dev.sart.agent..",
              "dev.sart.controller..",
              "dev.sart.sartd..")
          .because(
              "the CLI talks to the daemons through the sart.v1 gRPC API and to the cluster through its API");
}
