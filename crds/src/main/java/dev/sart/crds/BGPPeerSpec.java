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
 * {@code oldSelf} cannot be correlated).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.addr) || isIP(self.addr)",
    message = "addr must be an IPv4 or IPv6 address",
    fieldPath = ".addr")
// RFC 4271 §4.2: the Hold Time is zero or at least three seconds
@ValidationRule(
    value = "!has(self.holdTime) || self.holdTime == 0 || self.holdTime >= 3",
    message = "holdTime must be 0 or at least 3 (RFC 4271 §4.2)",
    fieldPath = ".holdTime")
@ValidationRule(
    value =
        "!has(self.holdTime) || !has(self.keepaliveTime) || self.holdTime == 0 || self.keepaliveTime < self.holdTime",
    message = "keepaliveTime must be shorter than holdTime",
    fieldPath = ".keepaliveTime")
public record BGPPeerSpec(
    @Required @Min(1) @Max(4294967295.0) Long asn,
    @Required @Size(max = 45) String addr,
    @Min(0) @Max(65535) Long holdTime,
    @Min(0) @Max(21845) Long keepaliveTime,
    List<String> capabilities,
    @Required @Size(min = 1, max = 253) String nodeBGPRef,
    String clusterBGPRef,
    @Required SpeakerConfig speaker,
    List<String> groups) {}
