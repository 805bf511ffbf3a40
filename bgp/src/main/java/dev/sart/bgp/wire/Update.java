package dev.sart.bgp.wire;

import java.util.List;
import java.util.Optional;

/**
 * RFC 4271 §4.3: an UPDATE.
 *
 * <pre>
 * +-----------------------------------------------------+
 * |   Withdrawn Routes Length (2 octets)                |
 * +-----------------------------------------------------+
 * |   Withdrawn Routes (variable)                       |
 * +-----------------------------------------------------+
 * |   Total Path Attribute Length (2 octets)            |
 * +-----------------------------------------------------+
 * |   Path Attributes (variable)                        |
 * +-----------------------------------------------------+
 * |   Network Layer Reachability Information (variable) |
 * +-----------------------------------------------------+
 * </pre>
 *
 * Other families travel in the MP_REACH_NLRI and MP_UNREACH_NLRI attributes (RFC 4760). A decoded
 * UPDATE carries the RFC 7606 verdict on it in {@link #errors()}; an UPDATE to send has none.
 *
 * @param withdrawn the IPv4 unicast routes withdrawn
 * @param attributes the path attributes, MP_REACH_NLRI and MP_UNREACH_NLRI included
 * @param nlri the IPv4 unicast routes announced
 * @param errors what RFC 7606 says about problems found while decoding; empty when none
 */
public record Update(
    Ipv4Prefixes withdrawn, PathAttributes attributes, Ipv4Prefixes nlri, List<UpdateError> errors)
    implements Message {

  public Update {
    errors = List.copyOf(errors);
  }

  public Update(Ipv4Prefixes withdrawn, PathAttributes attributes, Ipv4Prefixes nlri) {
    this(withdrawn, attributes, nlri, List.of());
  }

  /**
   * RFC 4724 §2: the End-of-RIB marker: an empty UPDATE for IPv4 unicast, else an UPDATE with
   * nothing but an empty MP_UNREACH_NLRI of the family.
   */
  public static Update endOfRib(Family family) {
    if (family.equals(Family.IPV4_UNICAST)) {
      return new Update(Ipv4Prefixes.EMPTY, PathAttributes.EMPTY, Ipv4Prefixes.EMPTY);
    }
    Nlri empty =
        switch (family.afi()) {
          case Iana.Afi.IPV4 -> family.hasPrefixNlri() ? Ipv4Prefixes.EMPTY : OpaqueNlri.EMPTY;
          case Iana.Afi.IPV6 -> family.hasPrefixNlri() ? Ipv6Prefixes.EMPTY : OpaqueNlri.EMPTY;
          default -> OpaqueNlri.EMPTY;
        };
    return new Update(
        Ipv4Prefixes.EMPTY,
        PathAttributes.of(new MpUnreachNlri(family, empty)),
        Ipv4Prefixes.EMPTY);
  }

  /** The family whose End-of-RIB this UPDATE is (RFC 4724 §2), if it is one. */
  public Optional<Family> endOfRibFamily() {
    if (!withdrawn.isEmpty() || !nlri.isEmpty() || !errors.isEmpty()) {
      return Optional.empty();
    }
    if (attributes.isEmpty()) {
      return Optional.of(Family.IPV4_UNICAST);
    }
    if (attributes.size() == 1
        && attributes.get(0) instanceof MpUnreachNlri u
        && u.withdrawn().isEmpty()) {
      return Optional.of(u.family());
    }
    return Optional.empty();
  }

  /** The MP_REACH_NLRI attribute, or null. */
  public MpReachNlri mpReach() {
    return attributes.orNull(MpReachNlri.class);
  }

  /** The MP_UNREACH_NLRI attribute, or null. */
  public MpUnreachNlri mpUnreach() {
    return attributes.orNull(MpUnreachNlri.class);
  }

  /** RFC 7606 §3 (f): the strongest action any error asks for; {@code NONE} when there is none. */
  public UpdateError.Action action() {
    UpdateError.Action a = UpdateError.Action.NONE;
    for (UpdateError e : errors) {
      a = a.max(e.action());
    }
    return a;
  }

  /** The error behind {@link #action()}: the first of the strongest, if any. */
  public Optional<UpdateError> decisiveError() {
    UpdateError.Action a = action();
    for (UpdateError e : errors) {
      if (e.action() == a) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  @Override
  public int type() {
    return Iana.MessageType.UPDATE;
  }
}
