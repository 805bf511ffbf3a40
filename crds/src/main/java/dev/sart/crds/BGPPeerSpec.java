package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * The remote {@code asn} and {@code addr}, the node ({@code nodeBGPRef}) whose speaker holds the
 * session, the ClusterBGP that made it (if any), timers in seconds, and the peer {@code groups} a
 * Service can select with {@code bgppeer.sart.terassyi.net/group}. Identity (asn, addr, node) is
 * immutable (a rule on {@link BGPPeer}: this type is also embedded in NodeBGP's peer list, where
 * {@code oldSelf} cannot be correlated). Additions: {@code bfd} ({@link BfdSpec}) and {@code
 * gracefulRestart} ({@link GracefulRestartSpec}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.holdTime) || !has(self.keepaliveTime) || self.holdTime == 0 || self.keepaliveTime < self.holdTime",
    message = "keepaliveTime must be shorter than holdTime",
    fieldPath = ".keepaliveTime")
public record BGPPeerSpec(
    @Required @Min(1) @Max(4294967295.0) Long asn,
    @ValidationRule(value = "isIP(self)", message = "addr must be an IPv4 or IPv6 address")
        @Required
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
    GracefulRestartSpec gracefulRestart) {

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
