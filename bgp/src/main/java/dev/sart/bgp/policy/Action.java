package dev.sart.bgp.policy;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.LargeCommunities;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.PathAttributes;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** A change an accepting statement makes to the path attributes. */
public sealed interface Action {

  /** The attributes after the change; {@code localAs} is the speaker's AS (for prepending it). */
  PathAttributes apply(PathAttributes attributes, long localAs);

  /** LOCAL_PREF (RFC 4271 §5.1.5); on export it only reaches internal peers. */
  record SetLocalPref(long value) implements Action {
    public SetLocalPref {
      checkU32(value, "LOCAL_PREF");
    }

    @Override
    public PathAttributes apply(PathAttributes a, long localAs) {
      return a.with(new LocalPref(value));
    }
  }

  /** MULTI_EXIT_DISC (RFC 4271 §5.1.4). */
  record SetMed(long value) implements Action {
    public SetMed {
      checkU32(value, "MED");
    }

    @Override
    public PathAttributes apply(PathAttributes a, long localAs) {
      return a.with(new MultiExitDisc(value));
    }
  }

  /**
   * RFC 1997 communities: added to those the route carries, or replacing them all ({@code replace}
   * with an empty list removes the attribute).
   */
  record SetCommunities(List<Integer> communities, boolean replace) implements Action {
    public SetCommunities {
      communities = List.copyOf(communities);
      if (!replace && communities.isEmpty()) {
        throw new IllegalArgumentException("adding communities needs at least one");
      }
    }

    @Override
    public PathAttributes apply(PathAttributes a, long localAs) {
      Set<Integer> all = new LinkedHashSet<>();
      Communities old = a.orNull(Communities.class);
      if (!replace && old != null) {
        for (int i = 0; i < old.size(); i++) {
          all.add(old.get(i));
        }
      }
      all.addAll(communities);
      if (all.isEmpty()) {
        return a.without(Iana.AttributeType.COMMUNITIES);
      }
      return a.with(Communities.of(all.stream().mapToInt(Integer::intValue).toArray()));
    }
  }

  /** RFC 8092 large communities, added or replacing (empty with {@code replace}: removed). */
  record SetLargeCommunities(List<Match.LargeCommunity> communities, boolean replace)
      implements Action {
    public SetLargeCommunities {
      communities = List.copyOf(communities);
      if (!replace && communities.isEmpty()) {
        throw new IllegalArgumentException("adding large communities needs at least one");
      }
    }

    @Override
    public PathAttributes apply(PathAttributes a, long localAs) {
      Set<Match.LargeCommunity> all = new LinkedHashSet<>();
      LargeCommunities old = a.orNull(LargeCommunities.class);
      if (!replace && old != null) {
        for (int i = 0; i < old.size(); i++) {
          all.add(
              new Match.LargeCommunity(
                  old.globalAdministrator(i), old.localData1(i), old.localData2(i)));
        }
      }
      all.addAll(communities);
      if (all.isEmpty()) {
        return a.without(Iana.AttributeType.LARGE_COMMUNITY);
      }
      long[] parts = new long[all.size() * 3];
      int i = 0;
      for (Match.LargeCommunity c : all) {
        parts[i++] = c.globalAdministrator();
        parts[i++] = c.localData1();
        parts[i++] = c.localData2();
      }
      return a.with(LargeCommunities.of(parts));
    }
  }

  /**
   * AS_PATH prepending: {@code asn} (0: the speaker's own AS) put {@code times} times in front of
   * the path (RFC 4271 §5.1.2 describes the one prepend every eBGP speaker does; this is on top).
   */
  record PrependAsPath(long asn, int times) implements Action {
    public PrependAsPath {
      checkU32(asn, "AS");
      if (times < 1 || times > 32) {
        throw new IllegalArgumentException("prepend 1 to 32 times: " + times);
      }
    }

    @Override
    public PathAttributes apply(PathAttributes a, long localAs) {
      long as = asn == 0 ? localAs : asn;
      AsPath path = a.find(AsPath.class).orElse(AsPath.EMPTY);
      for (int i = 0; i < times; i++) {
        path = path.prepend(as);
      }
      return a.with(path);
    }
  }

  private static void checkU32(long v, String what) {
    if (v < 0 || v > 0xffff_ffffL) {
      throw new IllegalArgumentException(what + " is 32-bit unsigned: " + v);
    }
  }
}
