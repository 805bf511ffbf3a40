package dev.sart.bgp.wire;

import java.util.List;

/**
 * An optional parameter of an OPEN (RFC 4271 §4.2). Capabilities (RFC 5492 §4) are the only
 * parameter in use; any other type is answered with 2/4 Unsupported Optional Parameter (RFC 4271
 * §6.2), so there is no unknown variant to keep.
 */
public sealed interface OptionalParameter {

  int type();

  /**
   * One Capabilities parameter. Speakers differ in whether they put every capability in one
   * parameter (BIRD) or each in its own (FRR, GoBGP); the grouping is kept so that an OPEN
   * re-encodes to the same bytes.
   */
  record Capabilities(List<Capability> capabilities) implements OptionalParameter {
    public Capabilities {
      capabilities = List.copyOf(capabilities);
    }

    @Override
    public int type() {
      return Iana.OptionalParameter.CAPABILITIES;
    }
  }
}
