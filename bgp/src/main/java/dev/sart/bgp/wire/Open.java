package dev.sart.bgp.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * RFC 4271 §4.2: an OPEN.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+
 *  |    Version    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |     My Autonomous System      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |           Hold Time           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         BGP Identifier                        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Opt Parm Len  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |             Optional Parameters (variable)                    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * @param myAs the 2-octet field: {@link Iana#AS_TRANS} when the AS needs 4 octets (RFC 6793 §3)
 * @param bgpIdentifier 4 octets, unsigned (RFC 6286)
 */
public record Open(
    int version, int myAs, int holdTime, int bgpIdentifier, List<OptionalParameter> parameters)
    implements Message {

  public static final int VERSION = 4;

  public Open {
    if (version < 0
        || version > 0xff
        || myAs < 0
        || myAs > 0xffff
        || holdTime < 0
        || holdTime > 0xffff) {
      throw new IllegalArgumentException("version/AS/hold time out of range");
    }
    parameters = List.copyOf(parameters);
  }

  /**
   * An OPEN of version 4 with every capability in one parameter; {@code as} goes into the 2-octet
   * field, or AS_TRANS if it does not fit (RFC 6793 §4.1: the caller adds {@link
   * Capability.FourOctetAs}).
   */
  public static Open of(long as, int holdTime, int bgpIdentifier, List<Capability> capabilities) {
    int myAs = as > 0xffff ? Iana.AS_TRANS : (int) as;
    List<OptionalParameter> parameters =
        capabilities.isEmpty()
            ? List.of()
            : List.of(new OptionalParameter.Capabilities(capabilities));
    return new Open(VERSION, myAs, holdTime, bgpIdentifier, parameters);
  }

  /** Every capability, in order, across all parameters. */
  public List<Capability> capabilities() {
    List<Capability> all = new ArrayList<>();
    for (OptionalParameter p : parameters) {
      switch (p) {
        case OptionalParameter.Capabilities c -> all.addAll(c.capabilities());
      }
    }
    return all;
  }

  /** The first capability of the given kind. */
  public <T extends Capability> Optional<T> capability(Class<T> kind) {
    for (Capability c : capabilities()) {
      if (kind.isInstance(c)) {
        return Optional.of(kind.cast(c));
      }
    }
    return Optional.empty();
  }

  /** RFC 6793 §4.1: the speaker's AS, from the 4-octet AS capability when there is one. */
  public long as() {
    return capability(Capability.FourOctetAs.class)
        .map(Capability.FourOctetAs::as)
        .orElse((long) myAs);
  }

  /**
   * RFC 4271 §6.2 and RFC 6793 §4.1: the AS of a peer's OPEN must be the configured one, else Bad
   * Peer AS (the data is empty; RFC 4271 names none). An OPEN with AS_TRANS in the 2-octet field
   * but no 4-octet AS capability is a Bad Peer AS too (RFC 6793 §4.1 reserves AS_TRANS).
   */
  public void checkPeerAs(long expectedAs) throws NotificationException {
    boolean fourOctet = capability(Capability.FourOctetAs.class).isPresent();
    if (as() != expectedAs || (!fourOctet && myAs == Iana.AS_TRANS)) {
      throw new NotificationException(
          Iana.ErrorCode.OPEN_MESSAGE,
          Iana.ErrorSubcode.BAD_PEER_AS,
          "peer AS " + as() + ", expected " + expectedAs);
    }
  }

  @Override
  public int type() {
    return Iana.MessageType.OPEN;
  }

  @Override
  public String toString() {
    return "Open[version="
        + version
        + ", myAs="
        + myAs
        + ", holdTime="
        + holdTime
        + ", bgpIdentifier="
        + Ip.formatV4(bgpIdentifier)
        + ", parameters="
        + parameters
        + "]";
  }
}
