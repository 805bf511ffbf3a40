package dev.sart.controller.advert;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AdvertisementAttrs;
import dev.sart.crds.Sart;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Service;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The path attributes of the advertisement of one load-balancer address ({@code spec.attrs}): those
 * of the service pool holding the address ({@code communities}, {@code localPref}, {@code med}),
 * then the Service's annotations on top ({@link AdvertisementAttrs#with}: its communities added,
 * its LOCAL_PREF and MED instead of the pool's). A malformed annotation is left out and reported;
 * the rest still applies.
 */
public final class PathAttributes {
  private PathAttributes() {}

  /** The attributes and what was wrong with the Service's annotations (empty: nothing). */
  record Result(AdvertisementAttrs attrs, List<String> problems) {}

  static Result of(Service service, InetAddress address, List<AddressPool> pools) {
    var attrs = AdvertisementAttrs.NONE;
    for (var pool : pools) {
      var spec = pool.getSpec();
      if (spec == null || spec.cidr() == null) {
        continue;
      }
      try {
        if (IpPrefix.parseCidr(spec.cidr()).contains(address)) {
          attrs = spec.attrs();
          break;
        }
      } catch (IllegalArgumentException e) {
        // a pool the schema would refuse: no attributes from it
      }
    }
    var annotations = annotations(service.getMetadata().getAnnotations());
    return new Result(attrs.with(annotations.attrs()), annotations.problems());
  }

  /**
   * What is wrong with a Service's path attribute annotations, each naming its annotation (empty:
   * nothing); the Service webhook refuses such a Service.
   */
  public static List<String> problems(Map<String, String> annotations) {
    return annotations(annotations).problems();
  }

  private static Result annotations(Map<String, String> annotations) {
    if (annotations == null) {
      return new Result(AdvertisementAttrs.NONE, List.of());
    }
    var problems = new ArrayList<String>();
    List<String> communities = null;
    String text = annotations.get(Sart.COMMUNITIES_ANNOTATION);
    if (text != null && !text.isBlank()) {
      communities = Arrays.stream(text.split(",")).map(String::strip).toList();
      try {
        AdvertisementAttrs.of(communities, null, null);
      } catch (IllegalArgumentException e) {
        problems.add(Sart.COMMUNITIES_ANNOTATION + ": " + e.getMessage());
        communities = null;
      }
    }
    Long localPref = u32(annotations, Sart.LOCAL_PREF_ANNOTATION, problems);
    Long med = u32(annotations, Sart.MED_ANNOTATION, problems);
    return new Result(AdvertisementAttrs.of(communities, localPref, med), List.copyOf(problems));
  }

  private static Long u32(Map<String, String> annotations, String key, List<String> problems) {
    String text = annotations.get(key);
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      long v = Long.parseLong(text.strip());
      if (v >= 0 && v <= AdvertisementAttrs.MAX_U32) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.add(key + ": '" + text + "' must be a number 0..4294967295");
    return null;
  }
}
