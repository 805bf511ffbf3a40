package dev.sart.bgp.wire;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the two OPENs of a session agreed on, as far as the wire format is concerned; the codec
 * holds one and reads nothing else. {@link #negotiate} derives it from the two OPENs.
 *
 * @param fourOctetAs RFC 6793: both sides sent the 4-octet AS capability, so AS_PATH and AGGREGATOR
 *     carry 4-octet AS numbers and AS4_PATH/AS4_AGGREGATOR are not used
 * @param addPathReceive RFC 7911: families whose received NLRI carry a Path Identifier
 * @param addPathSend RFC 7911: families whose sent NLRI carry a Path Identifier
 * @param extendedMessage RFC 8654: messages other than OPEN and KEEPALIVE may be up to 65535 octets
 * @param extendedNextHop RFC 8950: families whose NLRI may have an IPv6 next hop (IPv4 unicast)
 * @param external the peer is in another AS (eBGP): RFC 7606 §7 handles some attributes differently
 *     then (LOCAL_PREF, ORIGINATOR_ID, CLUSTER_LIST, AS_CONFED_*)
 */
public record SessionOptions(
    boolean fourOctetAs,
    Set<Family> addPathReceive,
    Set<Family> addPathSend,
    boolean extendedMessage,
    Set<Family> extendedNextHop,
    boolean external) {

  /** Before any capability is negotiated: plain RFC 4271 towards an external peer. */
  public static final SessionOptions DEFAULT =
      new SessionOptions(false, Set.of(), Set.of(), false, Set.of(), true);

  /** 4-octet AS, nothing else: what almost every modern eBGP session has. */
  public static final SessionOptions FOUR_OCTET_AS = DEFAULT.withFourOctetAs(true);

  public SessionOptions {
    addPathReceive = Set.copyOf(addPathReceive);
    addPathSend = Set.copyOf(addPathSend);
    extendedNextHop = Set.copyOf(extendedNextHop);
  }

  /**
   * The options of a session whose local OPEN was {@code local} and whose peer sent {@code remote}.
   */
  public static SessionOptions negotiate(Open local, Open remote, boolean external) {
    List<Capability> ours = local.capabilities();
    List<Capability> theirs = remote.capabilities();
    // RFC 6793 §4.1
    boolean fourOctetAs =
        has(ours, Capability.FourOctetAs.class) && has(theirs, Capability.FourOctetAs.class);
    // RFC 8654 §3: both must advertise it
    boolean extendedMessage =
        has(ours, Capability.ExtendedMessage.class)
            && has(theirs, Capability.ExtendedMessage.class);
    // RFC 7911 §4: we receive path identifiers for a family if we said "receive" and they
    // said "send", and the other way round
    Set<Family> receive = new HashSet<>();
    Set<Family> send = new HashSet<>();
    for (Capability.AddPath.Entry mine : addPathEntries(ours)) {
      for (Capability.AddPath.Entry peer : addPathEntries(theirs)) {
        if (mine.family().equals(peer.family())) {
          if (mine.receive() && peer.send()) {
            receive.add(mine.family());
          }
          if (mine.send() && peer.receive()) {
            send.add(mine.family());
          }
        }
      }
    }
    // RFC 8950 §4: both advertise the same <NLRI AFI, NLRI SAFI, Nexthop AFI = IPv6>
    Set<Family> nextHop = new HashSet<>();
    for (Capability.ExtendedNextHop.Entry mine : nextHopEntries(ours)) {
      if (mine.nextHopAfi() == Iana.Afi.IPV6 && nextHopEntries(theirs).contains(mine)) {
        nextHop.add(mine.family());
      }
    }
    return new SessionOptions(fourOctetAs, receive, send, extendedMessage, nextHop, external);
  }

  public SessionOptions withFourOctetAs(boolean value) {
    return new SessionOptions(
        value, addPathReceive, addPathSend, extendedMessage, extendedNextHop, external);
  }

  public SessionOptions withAddPath(Set<Family> receive, Set<Family> send) {
    return new SessionOptions(
        fourOctetAs, receive, send, extendedMessage, extendedNextHop, external);
  }

  public SessionOptions withExtendedMessage(boolean value) {
    return new SessionOptions(
        fourOctetAs, addPathReceive, addPathSend, value, extendedNextHop, external);
  }

  public SessionOptions withExtendedNextHop(Set<Family> families) {
    return new SessionOptions(
        fourOctetAs, addPathReceive, addPathSend, extendedMessage, families, external);
  }

  public SessionOptions withExternal(boolean value) {
    return new SessionOptions(
        fourOctetAs, addPathReceive, addPathSend, extendedMessage, extendedNextHop, value);
  }

  /** The largest message this session accepts and sends (RFC 4271 §4.1, RFC 8654 §4). */
  public int maxMessageLength() {
    return extendedMessage ? Framer.MAX_EXTENDED_LENGTH : Framer.MAX_LENGTH;
  }

  private static boolean has(List<Capability> capabilities, Class<? extends Capability> kind) {
    for (Capability c : capabilities) {
      if (kind.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  private static List<Capability.AddPath.Entry> addPathEntries(List<Capability> capabilities) {
    for (Capability c : capabilities) {
      if (c instanceof Capability.AddPath a) {
        return a.families();
      }
    }
    return List.of();
  }

  private static List<Capability.ExtendedNextHop.Entry> nextHopEntries(
      List<Capability> capabilities) {
    for (Capability c : capabilities) {
      if (c instanceof Capability.ExtendedNextHop e) {
        return e.entries();
      }
    }
    return List.of();
  }
}
