package dev.sart.bgp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The layers of the speaker (DESIGN.md §2), checked on the compiled classes. */
@AnalyzeClasses(packages = "dev.sart.bgp", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule onlyThePeerWritesItsSessionState =
      noClasses()
          .that()
          .doNotBelongToAnyOf(dev.sart.bgp.peer.Peer.class)
          .should()
          .setFieldWhere(
              DescribedPredicate.describe(
                  "a field of Peer",
                  access -> access.getTargetOwner().isEquivalentTo(dev.sart.bgp.peer.Peer.class)))
          .because(
              "the peer's event loop owns its session state (issue 23 §4): its connections and the"
                  + " RIB hand it events through its methods instead of writing its fields");

  @ArchTest
  static final ArchRule wireKnowsNothingAboveIt =
      classes()
          .that()
          .resideInAPackage("dev.sart.bgp.wire..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("dev.sart.bgp.wire..", "java..")
          .because("the codec is the bottom layer: every other layer and tool may use it alone");

  @ArchTest
  static final ArchRule fsmIsSansIo =
      noClasses()
          .that()
          .resideInAPackage("dev.sart.bgp.fsm..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "java.net..", "java.nio.channels..", "java.nio.file..", "java.util.concurrent..")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName(Thread.class.getName())
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName(java.time.Clock.class.getName())
          .orShould()
          .callMethod(System.class, "nanoTime")
          .orShould()
          .callMethod(System.class, "currentTimeMillis")
          .orShould()
          .callMethod(java.time.Instant.class, "now")
          .orShould()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.sart.bgp.peer..",
              "dev.sart.bgp.server..",
              "dev.sart.bgp.rib..",
              "dev.sart.bgp.api..")
          .because(
              "the FSM is RFC 4271 §8 as a pure function (state, event) -> (state, actions):"
                  + " no I/O, no clock, no threads");

  @ArchTest
  static final ArchRule bfdIsSansIo =
      noClasses()
          .that()
          .resideInAPackage("dev.sart.bgp.bfd..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "java.net..",
              "java.nio.channels..",
              "java.util.concurrent..",
              "dev.sart.bgp.peer..",
              "dev.sart.bgp.server..")
          .orShould()
          .callMethod(System.class, "nanoTime")
          .orShould()
          .callMethod(java.time.Instant.class, "now")
          .because(
              "BFD's state machine (RFC 5880 §6.8) is fed packets and timer expiries by"
                  + " server.BfdEndpoint, which owns the sockets and the clock");

  @ArchTest
  static final ArchRule fsmRibAndPolicyNeverTouchNetty =
      noClasses()
          .that()
          .resideInAnyPackage("dev.sart.bgp.fsm..", "dev.sart.bgp.rib..", "dev.sart.bgp.policy..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.netty..", "io.grpc..")
          .because("only peer and server touch the network; the RIB is fed by queues");

  @ArchTest
  static final ArchRule onlyPeerAndServerTouchNetty =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.sart.bgp.peer..", "dev.sart.bgp.server..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.netty..")
          .because("peer and server own every Netty channel and timer (DESIGN.md §5)");

  @ArchTest
  static final ArchRule knowsNoKubernetesNorTheOtherModules =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.fabric8..",
              "dev.sart.crds..",
              "dev.sart.agent..",
              "dev.sart.controller..",
              "dev.sart.fib..",
              "dev.sart.cli..")
          .because("the speaker is a library useful without Kubernetes (DESIGN.md §2)");
}
