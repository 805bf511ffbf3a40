package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * Every field optional: a template, or the inline {@code peerConfig} of a ClusterBGP that overrides
 * one. Additions: {@code bfd}, {@code gracefulRestart} and {@code interface} (an unnumbered
 * neighbour, instead of {@code addr}), as on a BGPPeer.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.addr) || !has(self.interface)",
    message = "at most one of addr and interface",
    fieldPath = ".addr")
public record BGPPeerTemplateSpec(
    @Min(1) @Max(4294967295.0) Long asn,
    @ValidationRule(value = "isIP(self)", message = "addr must be an IPv4 or IPv6 address")
        @Size(max = Limits.IP)
        String addr,
    @Size(max = Limits.CAPABILITIES) List<@Size(max = Limits.NAME) String> capabilities,
    // RFC 4271 §4.2: the Hold Time is zero or at least three seconds
    @ValidationRule(
            value = "self == 0 || self >= 3",
            message = "holdTime must be 0 or at least 3 (RFC 4271 §4.2)")
        @Min(0)
        @Max(65535)
        Long holdTime,
    @Min(0) @Max(21845) Long keepaliveTime,
    @Size(max = Limits.GROUPS) List<@Size(max = Limits.LABEL_VALUE) String> groups,
    BfdSpec bfd,
    GracefulRestartSpec gracefulRestart,
    @JsonProperty("interface")
        @Size(min = 1, max = Limits.INTERFACE)
        @Pattern(Limits.INTERFACE_REGEX)
        String interfaceName) {

  /** Without {@code interface}. */
  public BGPPeerTemplateSpec(
      Long asn,
      String addr,
      List<String> capabilities,
      Long holdTime,
      Long keepaliveTime,
      List<String> groups,
      BfdSpec bfd,
      GracefulRestartSpec gracefulRestart) {
    this(asn, addr, capabilities, holdTime, keepaliveTime, groups, bfd, gracefulRestart, null);
  }

  /** sart's fields only: no BFD, the speaker's graceful restart defaults. */
  public BGPPeerTemplateSpec(
      Long asn,
      String addr,
      List<String> capabilities,
      Long holdTime,
      Long keepaliveTime,
      List<String> groups) {
    this(asn, addr, capabilities, holdTime, keepaliveTime, groups, null, null, null);
  }
}
