package dev.sart.bgp.policy;

import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.LargeCommunities;
import dev.sart.bgp.wire.PathAttributes;
import java.util.List;

/**
 * The conditions of a statement; all that are given must hold (an empty match holds for every
 * route).
 *
 * @param prefixList the route's prefix must be permitted by this list, or null for any prefix
 * @param communities the route must carry at least one of these RFC 1997 communities; empty: no
 *     condition
 * @param largeCommunities the route must carry at least one of these RFC 8092 communities; empty:
 *     no condition
 */
public record Match(
    PrefixList prefixList, List<Integer> communities, List<LargeCommunity> largeCommunities) {

  /** Every route. */
  public static final Match ANY = new Match(null, List.of(), List.of());

  public Match {
    communities = List.copyOf(communities);
    largeCommunities = List.copyOf(largeCommunities);
  }

  public static Match prefixes(PrefixList list) {
    return new Match(list, List.of(), List.of());
  }

  public static Match community(int... values) {
    return new Match(null, java.util.Arrays.stream(values).boxed().toList(), List.of());
  }

  public static Match largeCommunity(LargeCommunity... values) {
    return new Match(null, List.of(), List.of(values));
  }

  boolean matches(Family family, long high, long low, int length, PathAttributes attributes) {
    if (prefixList != null && !prefixList.permits(family, high, low, length)) {
      return false;
    }
    if (!communities.isEmpty()) {
      Communities c = attributes.orNull(Communities.class);
      if (c == null || communities.stream().noneMatch(c::contains)) {
        return false;
      }
    }
    if (!largeCommunities.isEmpty()) {
      LargeCommunities c = attributes.orNull(LargeCommunities.class);
      if (c == null || largeCommunities.stream().noneMatch(l -> l.in(c))) {
        return false;
      }
    }
    return true;
  }

  /** An RFC 8092 large community: three unsigned 32-bit parts. */
  public record LargeCommunity(long globalAdministrator, long localData1, long localData2) {

    public LargeCommunity {
      for (long v : new long[] {globalAdministrator, localData1, localData2}) {
        if (v < 0 || v > 0xffff_ffffL) {
          throw new IllegalArgumentException("large community parts are 32-bit unsigned: " + v);
        }
      }
    }

    /** Parses {@code A:B:C}. */
    public static LargeCommunity parse(String text) {
      String[] p = text.strip().split(":");
      if (p.length != 3) {
        throw new IllegalArgumentException("a large community is A:B:C: '" + text + "'");
      }
      try {
        return new LargeCommunity(Long.parseLong(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "a large community is A:B:C with decimal numbers: '" + text + "'");
      }
    }

    boolean in(LargeCommunities c) {
      for (int i = 0; i < c.size(); i++) {
        if (c.globalAdministrator(i) == globalAdministrator
            && c.localData1(i) == localData1
            && c.localData2(i) == localData2) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return globalAdministrator + ":" + localData1 + ":" + localData2;
    }
  }

  /** Parses an RFC 1997 community {@code AS:value} (16 bits each). */
  public static int parseCommunity(String text) {
    String[] p = text.strip().split(":");
    try {
      if (p.length != 2) {
        throw new NumberFormatException();
      }
      return Communities.community(Integer.parseInt(p[0]), Integer.parseInt(p[1]));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("a community is AS:VALUE, 16 bits each: '" + text + "'");
    }
  }
}
