package dev.sart.controller;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The controller's place (DESIGN.md §2). */
@AnalyzeClasses(
    packages = "dev.sart.controller",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule neverUsesTheAgentOrTheNodeSide =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.sart.agent..", "dev.sart.bgp..", "dev.sart.fib..", "dev.sart.cni..")
          .because("the controller and the agent meet only in the API server");
}
