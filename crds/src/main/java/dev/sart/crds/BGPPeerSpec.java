package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * The remote {@code asn} and {@code addr}, the node ({@code nodeBGPRef}) whose speaker holds the
 * session, the ClusterBGP that made it (if any), timers in seconds, and the peer {@code groups} a
 * Service can select with {@code bgppeer.sart.terassyi.net/group}. Identity (asn, addr, node) is
 * immutable (a rule on {@link BGPPeer}: this type is also embedded in NodeBGP's peer list, where
 * {@code oldSelf} cannot be correlated). Additions: {@code bfd} ({@link BfdSpec}), {@code
 * gracefulRestart} ({@link GracefulRestartSpec}) and {@code interface}: an unnumbered neighbour
 * (RFC 8950 fabrics) on that link of the node, its IPv6 link-local address learned there, given
 * instead of {@code addr} (exactly one of the two).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.holdTime) || !has(self.keepaliveTime) || self.holdTime == 0 || self.keepaliveTime < self.holdTime",
    message = "keepaliveTime must be shorter than holdTime",
    fieldPath = ".keepaliveTime")
@ValidationRule(
    value = "has(self.addr) != has(self.interface)",
    message = "exactly one of addr and interface",
    fieldPath = ".addr")
public record BGPPeerSpec(
    @Required @Min(1) @Max(4294967295.0) Long asn,
    @ValidationRule(value = "isIP(self)", message = "addr must be an IPv4 or IPv6 address")
        @Size(max = Limits.IP)
        String addr,
    // RFC 4271 §4.2: the Hold Time is zero or at least three seconds
    @ValidationRule(
            value = "self == 0 || self >= 3",
            message = "holdTime must be 0 or at least 3 (RFC 4271 §4.2)")
        @Min(0)
        @Max(65535)
        Long holdTime,
    @Min(0) @Max(21845) Long keepaliveTime,
    @Size(max = Limits.CAPABILITIES) List<@Size(max = Limits.NAME) String> capabilities,
    @Required @Size(min = 1, max = Limits.NAME) String nodeBGPRef,
    @Size(max = Limits.NAME) String clusterBGPRef,
    @Required SpeakerConfig speaker,
    @Size(max = Limits.GROUPS) List<@Size(max = Limits.LABEL_VALUE) String> groups,
    BfdSpec bfd,
    GracefulRestartSpec gracefulRestart,
    // a Linux interface name (IFNAMSIZ 16 with its NUL)
    @JsonProperty("interface")
        @Size(min = 1, max = Limits.INTERFACE)
        @Pattern(Limits.INTERFACE_REGEX)
        String interfaceName) {

  /** Without {@code interface}: a neighbour at {@code addr}. */
  public BGPPeerSpec(
      Long asn,
      String addr,
      Long holdTime,
      Long keepaliveTime,
      List<String> capabilities,
      String nodeBGPRef,
      String clusterBGPRef,
      SpeakerConfig speaker,
      List<String> groups,
      BfdSpec bfd,
      GracefulRestartSpec gracefulRestart) {
    this(
        asn,
        addr,
        holdTime,
        keepaliveTime,
        capabilities,
        nodeBGPRef,
        clusterBGPRef,
        speaker,
        groups,
        bfd,
        gracefulRestart,
        null);
  }

  /** The speaker's key of this neighbour: its interface, or its address. */
  public String neighbor() {
    return interfaceName != null ? interfaceName : addr;
  }

  /** sart's fields only: no BFD, the speaker's graceful restart defaults. */
  public BGPPeerSpec(
      Long asn,
      String addr,
      Long holdTime,
      Long keepaliveTime,
      List<String> capabilities,
      String nodeBGPRef,
      String clusterBGPRef,
      SpeakerConfig speaker,
      List<String> groups) {
    this(
        asn,
        addr,
        holdTime,
        keepaliveTime,
        capabilities,
        nodeBGPRef,
        clusterBGPRef,
        speaker,
        groups,
        null,
        null);
  }
}
