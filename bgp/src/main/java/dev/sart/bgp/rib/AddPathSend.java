package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.Set;

/**
 * What a session sends with ADD-PATH (RFC 7911): the families both sides negotiated for us to send
 * Path Identifiers in (§4), and how many paths per prefix go out.
 *
 * @param families the families sent with Path Identifiers
 * @param maxPaths the best this many paths of each prefix that the export rules let through; 0: all
 */
public record AddPathSend(Set<Family> families, int maxPaths) {
  public AddPathSend {
    families = Set.copyOf(families);
    if (maxPaths < 0) {
      throw new IllegalArgumentException("ADD-PATH paths per prefix must be 0 (all) or more");
    }
  }

  public boolean covers(Family f) {
    return families.contains(f);
  }
}
