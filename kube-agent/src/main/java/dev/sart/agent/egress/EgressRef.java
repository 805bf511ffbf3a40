package dev.sart.agent.egress;

import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * An Egress a client pod opted into: its annotation {@code egress.sart.terassyi.net/<namespace>:
 * <name>[,<name>...]} (coil's {@code egress.coil.cybozu.com/<namespace>} is read the same way).
 */
public record EgressRef(String namespace, String name) implements Comparable<EgressRef> {

  /** Every Egress {@code pod} opted into (empty without the annotations). */
  public static Set<EgressRef> of(Pod pod) {
    return of(pod.getMetadata().getAnnotations());
  }

  static Set<EgressRef> of(Map<String, String> annotations) {
    var out = new TreeSet<EgressRef>();
    if (annotations == null) {
      return out;
    }
    for (var e : annotations.entrySet()) {
      String namespace = null;
      for (var prefix :
          new String[] {Sart.EGRESS_ANNOTATION_PREFIX, Sart.COIL_EGRESS_ANNOTATION_PREFIX}) {
        if (e.getKey().startsWith(prefix) && e.getKey().length() > prefix.length()) {
          namespace = e.getKey().substring(prefix.length());
        }
      }
      if (namespace == null || e.getValue() == null) {
        continue;
      }
      for (var name : e.getValue().split(",")) {
        if (!name.isBlank()) {
          out.add(new EgressRef(namespace, name.strip()));
        }
      }
    }
    return out;
  }

  @Override
  public int compareTo(EgressRef o) {
    int c = namespace.compareTo(o.namespace);
    return c != 0 ? c : name.compareTo(o.name);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
