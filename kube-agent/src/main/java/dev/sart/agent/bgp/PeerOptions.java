package dev.sart.agent.bgp;

import dev.sart.crds.BGPPeer;
import java.util.Map;

/**
 * Session options sart's BGPPeer has no field for, read from annotations on the BGPPeer (so the CRD
 * stays sart's):
 *
 * <ul>
 *   <li>{@value #PASSWORD_SECRET}: {@code NAMESPACE/NAME[/KEY]}, the Secret holding the TCP MD5
 *       password (RFC 2385), key {@code password} by default;
 *   <li>{@value #MULTIHOP_TTL}: eBGP multihop TTL (1..255; absent: directly connected);
 *   <li>{@value #TTL_SECURITY}: {@code true} for GTSM (RFC 5082);
 *   <li>{@value #CONNECT_RETRY_TIME}: ConnectRetryTime in seconds (RFC 4271 §10; absent: the
 *       speaker's).
 * </ul>
 */
record PeerOptions(
    SecretRef passwordSecret, int multihopTtl, boolean ttlSecurity, int connectRetryTime) {
  static final String PASSWORD_SECRET = "bgppeer.sart.terassyi.net/password-secret";
  static final String MULTIHOP_TTL = "bgppeer.sart.terassyi.net/multihop-ttl";
  static final String TTL_SECURITY = "bgppeer.sart.terassyi.net/ttl-security";
  static final String CONNECT_RETRY_TIME = "bgppeer.sart.terassyi.net/connect-retry-time";

  record SecretRef(String namespace, String name, String key) {
    @Override
    public String toString() {
      return namespace + "/" + name;
    }
  }

  static PeerOptions of(BGPPeer p) {
    Map<String, String> a =
        p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
    String who = "BGPPeer " + p.getMetadata().getName() + ": ";
    SecretRef secret = null;
    String ref = a.get(PASSWORD_SECRET);
    if (ref != null) {
      String[] parts = ref.split("/");
      if (parts.length < 2 || parts.length > 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
        throw new IllegalArgumentException(
            who + PASSWORD_SECRET + " must be NAMESPACE/NAME[/KEY], not " + ref);
      }
      secret = new SecretRef(parts[0], parts[1], parts.length == 3 ? parts[2] : "password");
    }
    int ttl = integer(a, MULTIHOP_TTL, 1, 255, who);
    boolean gtsm = Boolean.parseBoolean(a.getOrDefault(TTL_SECURITY, "false"));
    if (gtsm && ttl > 0) {
      throw new IllegalArgumentException(
          who + TTL_SECURITY + " and " + MULTIHOP_TTL + " exclude each other");
    }
    return new PeerOptions(secret, ttl, gtsm, integer(a, CONNECT_RETRY_TIME, 1, 65535, who));
  }

  private static int integer(Map<String, String> a, String key, int min, int max, String who) {
    String v = a.get(key);
    if (v == null) {
      return 0;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n < min || n > max) {
        throw new IllegalArgumentException(
            who + key + " must be " + min + ".." + max + ", not " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(who + key + " must be a number, not " + v);
    }
  }
}
