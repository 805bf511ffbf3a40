package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The three spellings of an advertisement's path attributes and the regular expressions. */
class AdvertisementAttrsTest {

  @Test
  void theNumberPatternsAcceptExactlyTheirRanges() {
    // the CEL rules have no int() of a substring: the ranges are in the regular expressions
    for (long n :
        new long[] {
          0, 1, 9, 10, 99, 9999, 10000, 59999, 60000, 64999, 65000, 65499, 65500, 65529, 65530,
          65535
        }) {
      assertTrue(AdvertisementAttrs.isCommunity(n + ":" + n), n + " is a 16-bit number");
    }
    for (long n : new long[] {65536, 65540, 65600, 66000, 70000, 99999, 100000}) {
      assertFalse(AdvertisementAttrs.isCommunity(n + ":1"), n + " is not 16-bit");
      assertFalse(AdvertisementAttrs.isCommunity("1:" + n), n + " is not 16-bit");
    }
    assertFalse(AdvertisementAttrs.isCommunity("01:1"), "no leading zeros");
    var random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      long n =
          switch (i % 3) {
            case 0 -> random.nextLong(0, 1L << 33);
            case 1 -> AdvertisementAttrs.MAX_U32 + random.nextLong(-2000, 2000);
            default -> (long) Math.pow(10, random.nextInt(11)) + random.nextLong(-3, 3);
          };
      if (n < 0) {
        continue;
      }
      boolean valid = n <= AdvertisementAttrs.MAX_U32;
      assertEquals(valid, AdvertisementAttrs.isAttr("med=" + n), "med=" + n);
      assertEquals(valid, AdvertisementAttrs.isCommunity("large:1:" + n + ":2"), "large " + n);
      long m = n % 70_000;
      assertEquals(m <= 65535, AdvertisementAttrs.isAttr("community=" + m + ":1"), "c " + m);
    }
  }

  @Test
  void specAttrsAreTheCliSpelling() {
    var attrs =
        AdvertisementAttrs.ofAttrs(
            List.of(
                "community=65000:100",
                "large_community=4200000000:1:2",
                "local_pref=200",
                "med=10"));
    assertEquals(List.of(65000L << 16 | 100), attrs.communities());
    assertEquals(
        List.of(new AdvertisementAttrs.Large(4_200_000_000L, 1, 2)), attrs.largeCommunities());
    assertEquals(200L, attrs.localPref());
    assertEquals(10L, attrs.med());
    assertEquals(
        List.of(
            "community=65000:100", "large_community=4200000000:1:2", "local_pref=200", "med=10"),
        attrs.toAttrs());
    assertNull(AdvertisementAttrs.ofAttrs(null).toAttrs(), "nothing to carry: no attrs");
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AdvertisementAttrs.ofAttrs(List.of("local-pref=200")));
    assertTrue(e.getMessage().startsWith("'local-pref=200': each attribute must be"));
  }

  @Test
  void poolsAndServicesUseMetallbsCommunitySyntax() {
    var pool = new AddressPoolSpec("198.51.100.0/24", AddressType.SERVICE, null, true);
    pool = pool.withAttrs(List.of("65000:1", "large:65000:2:3"), 150L, null);
    assertEquals(
        List.of("community=65000:1", "large_community=65000:2:3", "local_pref=150"),
        pool.attrs().toAttrs());
    var service = AdvertisementAttrs.of(List.of("65000:9", "65000:1"), null, 5L);
    assertEquals(
        List.of(
            "community=65000:1",
            "community=65000:9",
            "large_community=65000:2:3",
            "local_pref=150",
            "med=5"),
        pool.attrs().with(service).toAttrs(),
        "the Service's communities are added to the pool's; its MED is set, the pool's LOCAL_PREF"
            + " kept");
    assertThrows(
        IllegalArgumentException.class,
        () -> AdvertisementAttrs.of(List.of("large:1:2"), null, null));
  }

  @Test
  void twoAdvertisementsOfOnePrefixMergeTheSameEitherWay() {
    var a = AdvertisementAttrs.ofAttrs(List.of("community=1:2", "local_pref=100", "med=20"));
    var b = AdvertisementAttrs.ofAttrs(List.of("community=1:1", "local_pref=300"));
    assertEquals(a.merge(b), b.merge(a));
    assertEquals(
        List.of("community=1:1", "community=1:2", "local_pref=300", "med=20"),
        a.merge(b).toAttrs());
  }
}
