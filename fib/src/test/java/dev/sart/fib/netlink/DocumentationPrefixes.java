package dev.sart.fib.netlink;

import dev.sart.net.IpPrefix;
import java.util.ArrayList;
import java.util.List;

/** Many distinct IPv4 prefixes that stay inside the documentation ranges tests may use. */
final class DocumentationPrefixes {
  private DocumentationPrefixes() {}

  /**
   * Every prefix of length 24 to 32 inside 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24: 1,533
   * prefixes, most specific last within each /24.
   */
  static List<IpPrefix> ipv4() {
    List<IpPrefix> prefixes = new ArrayList<>();
    for (String base : List.of("192.0.2.", "198.51.100.", "203.0.113.")) {
      for (int len = 24; len <= 32; len++) {
        for (int host = 0; host < 256; host += 1 << (32 - len)) {
          prefixes.add(IpPrefix.parse(base + host + "/" + len));
        }
      }
    }
    return prefixes;
  }
}
