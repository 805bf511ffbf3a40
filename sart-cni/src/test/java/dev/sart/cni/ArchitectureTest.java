package dev.sart.cni;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The plugin loads no library and knows only the agent's socket (DESIGN.md §2, §8). */
@AnalyzeClasses(packages = "dev.sart.cni", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule onlyTheJdk =
      classes()
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("dev.sart.cni..", "java..", "sun.security.jca..", "sun.nio.ch..")
          .because(
              "the plugin's JVM start is on every pod's start-up path: no library is loaded (DESIGN.md §8)");
}
