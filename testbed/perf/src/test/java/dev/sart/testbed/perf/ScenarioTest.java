package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScenarioTest {
  @Test
  void theIssuesScenariosAtFullScale() {
    assertEquals(1_000_000, Scenario.named("a").distinctPrefixes());
    assertEquals(500_000, Scenario.named("b").distinctPrefixes());
    assertEquals(1_000_000, Scenario.named("b").paths());
    assertEquals(100_000, Scenario.named("c").distinctPrefixes());
    assertEquals(10_000, Scenario.named("d").churnPerPeer());
    // (e), issue 28: 2 peers × 2 paths of 250,000 prefixes, all 4 paths of each to the monitor
    Scenario e = Scenario.named("e");
    assertTrue(e.addPath());
    assertEquals(250_000, e.distinctPrefixes());
    assertEquals(1_000_000, e.paths());
    assertEquals(1_000_000, e.monitorRoutes());
  }

  @Test
  void theDefaultRunIsTheFourScenariosUnchanged() {
    assertEquals(
        java.util.List.of("a", "b", "c", "d"),
        Bgperf.parse(new String[0]).scenarios().stream().map(Scenario::name).toList());
  }

  @Test
  void scalingKeepsTwoPeersForBestPath() {
    Scenario b = Scenario.named("b").scaled(0.001, 0.1);
    assertEquals(2, b.peers());
    assertEquals(500, b.prefixesPerPeer());
  }

  @Test
  void badInputIsRefusedWithTheReason() {
    assertThrows(IllegalArgumentException.class, () -> Scenario.named("f"));
    assertThrows(IllegalArgumentException.class, () -> new Scenario("x", 121, 1, false, false));
    assertThrows(IllegalArgumentException.class, () -> Scenario.named("c").scaled(0, 1));
    assertThrows(IllegalArgumentException.class, () -> Target.named("quagga"));
    assertThrows(IllegalArgumentException.class, () -> Bgperf.parse(new String[] {"--scale"}));
  }

  @Test
  void churnRoundsDefaultToThreeAndMustBePositive() {
    assertEquals(3, Bgperf.parse(new String[0]).options().churnRounds());
    assertEquals(5, Bgperf.parse(new String[] {"--churn-rounds", "5"}).options().churnRounds());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Bgperf.parse(new String[] {"--churn-rounds", "0"}));
    assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
  }

  @Test
  void churnFiguresAreTheMedianOfTheRounds() {
    ChurnPhase p = ChurnPhase.NONE.plus(0.28, 0.14).plus(0.19, 0.12).plus(0.21, 0.15);
    assertEquals(3, p.rounds());
    assertEquals(0.21, p.median());
    assertEquals(0.28, p.first());
    assertEquals(0.14, p.medianCpu());
    assertEquals(0.245, p.plus(0.30, 0.1).median(), 1e-9); // even: the mean of the middle two
    assertTrue(Double.isNaN(ChurnPhase.NONE.median()) && Double.isNaN(ChurnPhase.NONE.first()));
  }

  @Test
  void inScenarioBTheWinnerAlternatesByPrefixClass() {
    assertEquals(1, Generators.expectedWinner(0));
    assertEquals(0, Generators.expectedWinner(1));
    assertEquals(1, Generators.expectedWinner(2));
    assertEquals(-1, Generators.expectedWinner(3));
  }
}
