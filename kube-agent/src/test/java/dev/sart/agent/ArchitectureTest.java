package dev.sart.agent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The agent's place (DESIGN.md §2). */
@AnalyzeClasses(packages = "dev.sart.agent", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule neverUsesTheController =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.sart.controller..")
          .because("the controller and the agent meet only in the API server");

  @ArchTest
  static final ArchRule drivesTheSpeakerOnlyThroughItsApi =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.sart.bgp..", "dev.sart.fib.daemon..")
          .because(
              "the agent drives the speaker and the FIB through their gRPC APIs, even in one JVM");
}
