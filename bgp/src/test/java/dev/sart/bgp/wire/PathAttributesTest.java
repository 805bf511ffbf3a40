package dev.sart.bgp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class PathAttributesTest {
  private static final PathAttributes SET =
      PathAttributes.of(
          Origin.IGP,
          AsPath.sequence(65001),
          NextHop.of("192.0.2.1"),
          new MultiExitDisc(10),
          Communities.of(Communities.community(65000, 1)));

  @Test
  void withoutDropsTheAttributeAndKeepsTheOrderAndFlagsOfTheOthers() {
    PathAttributes rest = SET.without(Iana.AttributeType.NEXT_HOP);
    assertEquals(
        PathAttributes.of(
            Origin.IGP,
            AsPath.sequence(65001),
            new MultiExitDisc(10),
            Communities.of(Communities.community(65000, 1))),
        rest);
    assertEquals(SET.flags(4), rest.flags(3));
    assertEquals(
        PathAttributes.of(
            AsPath.sequence(65001),
            NextHop.of("192.0.2.1"),
            new MultiExitDisc(10),
            Communities.of(Communities.community(65000, 1))),
        SET.without(Iana.AttributeType.ORIGIN));
    assertEquals(
        PathAttributes.of(
            Origin.IGP, AsPath.sequence(65001), NextHop.of("192.0.2.1"), new MultiExitDisc(10)),
        SET.without(Iana.AttributeType.COMMUNITIES));
  }

  @Test
  void withoutAnAbsentAttributeIsTheSameSetWithoutACopy() {
    assertSame(SET, SET.without(Iana.AttributeType.LOCAL_PREF));
    assertSame(
        PathAttributes.EMPTY, PathAttributes.of(Origin.IGP).without(Iana.AttributeType.ORIGIN));
  }

  @Test
  void withoutDropsARepeatedTypeCodeEverywhere() {
    PathAttributes twice =
        PathAttributes.builder()
            .add(Origin.IGP)
            .add(new MultiExitDisc(1))
            .add(new MultiExitDisc(2))
            .build();
    assertEquals(PathAttributes.of(Origin.IGP), twice.without(Iana.AttributeType.MULTI_EXIT_DISC));
  }

  @Test
  void readvertisingKnownAttributesOnlyNeedsNoCopy() {
    assertSame(SET, SET.forReadvertisement());
  }
}
