package dev.sart.crds;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The BGP path attributes an advertisement carries: COMMUNITIES (RFC 1997), LARGE_COMMUNITY (RFC
 * 8092), LOCAL_PREF (RFC 4271 §5.1.5, sent to internal peers only) and MULTI_EXIT_DISC (§5.1.4).
 *
 * <p>Three spellings, one meaning:
 *
 * <ul>
 *   <li>{@code BGPAdvertisement.spec.attrs} (sart declared the list and never read it): one
 *       attribute per item, as the {@code sart} CLI's {@code --attr}: {@code community=65000:100},
 *       {@code large_community=65000:1:2}, {@code local_pref=200}, {@code med=10};
 *   <li>AddressPool {@code communities} (MetalLB's BGPAdvertisement field and syntax: {@code
 *       65000:100} or {@code large:65000:1:2}), {@code localPref} (MetalLB's name) and {@code med};
 *   <li>the Service annotations {@link Sart#COMMUNITIES_ANNOTATION} (the pool's syntax,
 *       comma-separated), {@link Sart#LOCAL_PREF_ANNOTATION}, {@link Sart#MED_ANNOTATION}.
 * </ul>
 *
 * The regular expressions are those of the CEL rules, so the schema, the webhook and the controller
 * accept the same strings.
 */
public record AdvertisementAttrs(
    List<Long> communities, List<Large> largeCommunities, Long localPref, Long med) {

  /** One large community (RFC 8092 §3): three 4-octet numbers. */
  public record Large(long globalAdmin, long localData1, long localData2) {
    @Override
    public String toString() {
      return globalAdmin + ":" + localData1 + ":" + localData2;
    }
  }

  public static final AdvertisementAttrs NONE =
      new AdvertisementAttrs(List.of(), List.of(), null, null);

  /** 0..65535 without leading zeros. */
  static final String U16 =
      "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)";

  /** 0..4294967295 without leading zeros. */
  static final String U32 =
      "(429496729[0-5]|42949672[0-8][0-9]|4294967[01][0-9]{2}|429496[0-6][0-9]{3}"
          + "|42949[0-5][0-9]{4}|4294[0-8][0-9]{5}|429[0-3][0-9]{6}|42[0-8][0-9]{7}|4[01][0-9]{8}"
          + "|[1-3][0-9]{9}|[1-9][0-9]{0,8}|0)";

  /** An item of {@code spec.attrs}. */
  public static final String ATTR_REGEX =
      "^(community="
          + U16
          + ":"
          + U16
          + "|large_community="
          + U32
          + ":"
          + U32
          + ":"
          + U32
          + "|local_pref="
          + U32
          + "|med="
          + U32
          + ")$";

  public static final String ATTR_MESSAGE =
      "each attribute must be community=A:B (A, B 0..65535), large_community=A:B:C, local_pref=N"
          + " or med=N (A, B, C, N 0..4294967295)";

  /** A community of an AddressPool or the Service annotation (MetalLB's syntax). */
  public static final String COMMUNITY_REGEX =
      "^(" + U16 + ":" + U16 + "|large:" + U32 + ":" + U32 + ":" + U32 + ")$";

  public static final String COMMUNITY_MESSAGE =
      "a community must be A:B (A, B 0..65535) or large:A:B:C (A, B, C 0..4294967295)";

  public static final long MAX_U32 = 4_294_967_295L;

  private static final Pattern ATTR = Pattern.compile(ATTR_REGEX);
  private static final Pattern COMMUNITY = Pattern.compile(COMMUNITY_REGEX);

  public AdvertisementAttrs {
    communities = List.copyOf(communities);
    largeCommunities = List.copyOf(largeCommunities);
  }

  public boolean isEmpty() {
    return communities.isEmpty() && largeCommunities.isEmpty() && localPref == null && med == null;
  }

  /** Whether {@code text} is a valid item of {@code spec.attrs}. */
  public static boolean isAttr(String text) {
    return text != null && ATTR.matcher(text).matches();
  }

  /** Whether {@code text} is a valid AddressPool/annotation community. */
  public static boolean isCommunity(String text) {
    return text != null && COMMUNITY.matcher(text).matches();
  }

  /**
   * Reads {@code spec.attrs}; null or empty is {@link #NONE}.
   *
   * @throws IllegalArgumentException naming the first bad item
   */
  public static AdvertisementAttrs ofAttrs(List<String> attrs) {
    var b = new Builder();
    if (attrs == null) {
      return NONE;
    }
    for (String a : attrs) {
      if (!isAttr(a)) {
        throw new IllegalArgumentException("'" + a + "': " + ATTR_MESSAGE);
      }
      int eq = a.indexOf('=');
      String value = a.substring(eq + 1);
      switch (a.substring(0, eq)) {
        case "community" -> b.community(value);
        case "large_community" -> b.community("large:" + value);
        case "local_pref" -> b.localPref = Long.parseLong(value);
        case "med" -> b.med = Long.parseLong(value);
        default -> throw new AssertionError(a);
      }
    }
    return b.build();
  }

  /**
   * From an AddressPool's or a Service's settings (MetalLB's community syntax).
   *
   * @throws IllegalArgumentException naming the first bad community
   */
  public static AdvertisementAttrs of(List<String> communities, Long localPref, Long med) {
    var b = new Builder();
    if (communities != null) {
      communities.forEach(b::community);
    }
    b.localPref = localPref;
    b.med = med;
    return b.build();
  }

  /**
   * These attributes with {@code more} on top: the communities of both (ours first), LOCAL_PREF and
   * MED of {@code more} where it has them.
   */
  public AdvertisementAttrs with(AdvertisementAttrs more) {
    Set<Long> c = new LinkedHashSet<>(communities);
    c.addAll(more.communities);
    Set<Large> l = new LinkedHashSet<>(largeCommunities);
    l.addAll(more.largeCommunities);
    return new AdvertisementAttrs(
        List.copyOf(c),
        List.copyOf(l),
        more.localPref != null ? more.localPref : localPref,
        more.med != null ? more.med : med);
  }

  /**
   * Two advertisements of one prefix (Services sharing an address): both sets of communities, the
   * higher LOCAL_PREF (RFC 4271 §9.1.1: the more preferred), the lower MED (§9.1.2.2 c). Symmetric,
   * so the result does not depend on the order the advertisements come in.
   */
  public AdvertisementAttrs merge(AdvertisementAttrs other) {
    Set<Long> c = new java.util.TreeSet<>(communities);
    c.addAll(other.communities);
    Set<Large> l =
        new java.util.TreeSet<>(
            java.util.Comparator.comparingLong(Large::globalAdmin)
                .thenComparingLong(Large::localData1)
                .thenComparingLong(Large::localData2));
    l.addAll(largeCommunities);
    l.addAll(other.largeCommunities);
    return new AdvertisementAttrs(
        List.copyOf(c),
        List.copyOf(l),
        localPref == null
            ? other.localPref
            : other.localPref == null ? localPref : Math.max(localPref, other.localPref),
        med == null ? other.med : other.med == null ? med : Math.min(med, other.med));
  }

  /** The {@code spec.attrs} items, in a stable order; null when there is nothing to carry. */
  public List<String> toAttrs() {
    if (isEmpty()) {
      return null;
    }
    var out = new ArrayList<String>();
    communities.forEach(c -> out.add("community=" + (c >>> 16) + ":" + (c & 0xffff)));
    largeCommunities.forEach(l -> out.add("large_community=" + l));
    if (localPref != null) {
      out.add("local_pref=" + localPref);
    }
    if (med != null) {
      out.add("med=" + med);
    }
    return List.copyOf(out);
  }

  private static final class Builder {
    private final Set<Long> communities = new LinkedHashSet<>();
    private final Set<Large> large = new LinkedHashSet<>();
    private Long localPref;
    private Long med;

    void community(String text) {
      String t = text == null ? null : text.strip();
      if (!isCommunity(t)) {
        throw new IllegalArgumentException("'" + text + "': " + COMMUNITY_MESSAGE);
      }
      String[] parts = t.split(":");
      if (parts[0].equals("large")) {
        large.add(
            new Large(
                Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3])));
      } else {
        // RFC 1997: the high-order 16 bits an AS number, the low-order 16 bits its own value
        communities.add(Long.parseLong(parts[0]) << 16 | Long.parseLong(parts[1]));
      }
    }

    AdvertisementAttrs build() {
      if (localPref != null && (localPref < 0 || localPref > MAX_U32)) {
        throw new IllegalArgumentException("local_pref " + localPref + ": must be 0..4294967295");
      }
      if (med != null && (med < 0 || med > MAX_U32)) {
        throw new IllegalArgumentException("med " + med + ": must be 0..4294967295");
      }
      return new AdvertisementAttrs(List.copyOf(communities), List.copyOf(large), localPref, med);
    }
  }
}
