package dev.sart.fib;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The FIB's layers (DESIGN.md §2, §6), checked on the compiled classes. */
@AnalyzeClasses(packages = "dev.sart.fib", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule knowsNoKubernetesNorTheSpeakersInsides =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.fabric8..",
              "dev.sart.crds..",
              "dev.sart.agent..",
              "dev.sart.controller..",
              "dev.sart.bgp..",
              "dev.sart.cli..")
          .because("the FIB daemon meets the speaker only through the gRPC API (DESIGN.md §2)");

  @ArchTest
  static final ArchRule netlinkIsALibraryOfItsOwn =
      noClasses()
          .that()
          .resideInAPackage("dev.sart.fib.netlink..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.sart.fib.daemon..", "dev.sart.proto..", "io.grpc..")
          .because("netlink is used by the agent and the test bed too, without the daemon");

  @ArchTest
  static final ArchRule noIpSubprocesses =
      noClasses()
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.lang.ProcessBuilder")
          .because("netlink is spoken directly over AF_NETLINK, never through `ip` (DESIGN.md §6)");
}
