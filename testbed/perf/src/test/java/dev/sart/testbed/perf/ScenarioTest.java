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
  }

  @Test
  void scalingKeepsTwoPeersForBestPath() {
    Scenario b = Scenario.named("b").scaled(0.001, 0.1);
    assertEquals(2, b.peers());
    assertEquals(500, b.prefixesPerPeer());
  }

  @Test
  void badInputIsRefusedWithTheReason() {
    assertThrows(IllegalArgumentException.class, () -> Scenario.named("e"));
    assertThrows(IllegalArgumentException.class, () -> new Scenario("x", 121, 1, false, false));
    assertThrows(IllegalArgumentException.class, () -> Scenario.named("c").scaled(0, 1));
    assertThrows(IllegalArgumentException.class, () -> Target.named("quagga"));
    assertThrows(IllegalArgumentException.class, () -> Bgperf.parse(new String[] {"--scale"}));
  }

  @Test
  void churnRoundsDefaultToOneAndMustBePositive() {
    assertEquals(1, Bgperf.parse(new String[0]).options().churnRounds());
    assertEquals(3, Bgperf.parse(new String[] {"--churn-rounds", "3"}).options().churnRounds());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Bgperf.parse(new String[] {"--churn-rounds", "0"}));
    assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
  }

  @Test
  void inScenarioBTheWinnerAlternatesByPrefixClass() {
    assertEquals(1, Generators.expectedWinner(0));
    assertEquals(0, Generators.expectedWinner(1));
    assertEquals(1, Generators.expectedWinner(2));
    assertEquals(-1, Generators.expectedWinner(3));
  }
}
