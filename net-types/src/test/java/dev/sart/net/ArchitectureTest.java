package dev.sart.net;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The value types stand on the JDK alone (DESIGN.md §2; docs/architecture.md §2). */
@AnalyzeClasses(packages = "dev.sart.net", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule dependsOnNothingButTheJdk =
      classes()
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("dev.sart.net..", "java..")
          .because("every module, the test bed included, may use it; it may use none of them");
}
