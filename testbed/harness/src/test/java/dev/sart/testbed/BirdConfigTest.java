package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The bird.conf the driver writes for the neighbour options. */
class BirdConfigTest {
  private static String config(Neighbor n) {
    return new Bird(
            new Node(null, "r1", "unused", java.nio.file.Path.of("/nonexistent")),
            RouterConfig.of(65001, "192.0.2.1").neighbor(n))
        .configText();
  }

  @Test
  void configHonoursEveryNeighbourField() {
    String text =
        config(Neighbor.of("192.0.2.2", 65002).asPassive().withPassword("s3cret").withMultihop(3));
    assertTrue(text.contains("  neighbor 192.0.2.2 as 65002;\n"), text);
    assertTrue(text.contains("  passive on;\n  password \"s3cret\";\n  multihop 3;\n"), text);
  }

  @Test
  void gtsmTakesItsHopsFromMultihopOrDirect() {
    String direct = config(Neighbor.of("192.0.2.2", 65002).withTtlSecurity(1));
    assertTrue(direct.contains("  ttl security on;\n  direct;\n"), direct);
    String twoHops = config(Neighbor.of("192.0.2.2", 65002).withTtlSecurity(2));
    assertTrue(twoHops.contains("  ttl security on;\n  multihop 2;\n"), twoHops);
  }

  @Test
  void withoutAs4TurnsAs4OffAndTakesAFourOctetNeighbourAsAnyExternalAs() {
    String two = config(Neighbor.of("192.0.2.2", 65002).withoutAs4());
    assertTrue(two.contains("  neighbor 192.0.2.2 as 65002;\n"), two);
    assertTrue(two.contains("  enable as4 off;\n"), two);
    String four = config(Neighbor.of("192.0.2.2", 4_200_000_001L).withoutAs4());
    assertTrue(four.contains("  neighbor 192.0.2.2 external;\n"), four);
    assertTrue(four.contains("  enable as4 off;\n"), four);
    String normal = config(Neighbor.of("192.0.2.2", 4_200_000_001L));
    assertTrue(
        normal.contains("  neighbor 192.0.2.2 as 4200000001;\n") && !normal.contains("as4"),
        normal);
  }
}
