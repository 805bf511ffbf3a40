package dev.sart.crds;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The custom resource model stands alone (DESIGN.md §2). */
@AnalyzeClasses(packages = "dev.sart.crds", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule usesNoOtherSartModule =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.sart.bgp..",
              "dev.sart.fib..",
              "dev.sart.agent..",
              "dev.sart.controller..",
              "dev.sart.proto..")
          .because("the controller and the agent both use the model; it depends on neither");
}
