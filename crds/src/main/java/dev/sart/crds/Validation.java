package dev.sart.crds;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.util.ArrayList;
import java.util.List;

/**
 * The object-local rules of the CRD schema (the CEL {@code x-kubernetes-validations} and the
 * required fields) in Java: the admission webhook applies them too, so that an API server older
 * than the CEL IP/CIDR library (Kubernetes 1.31) still rejects what the schema would. Each method
 * returns the violations as {@code field: message}; empty means valid.
 */
public final class Validation {
  private Validation() {}

  private static final long MAX_ASN = 4_294_967_295L;

  public static List<String> addressPool(AddressPoolSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return List.of("spec: required");
    }
    if (spec.type() == null) {
      errors.add("spec.type: required (service, pod or egress)");
    }
    if (spec.allowedNamespaces() != null && spec.type() != AddressType.EGRESS) {
      errors.add("spec.allowedNamespaces: allowedNamespaces is only for pools of type egress");
    }
    IpPrefix cidr = cidr("spec.cidr", spec.cidr(), errors);
    if (cidr != null && spec.blockSize() != null) {
      int size = spec.blockSize();
      if (size < cidr.length() || size > cidr.addressBits()) {
        errors.add(
            "spec.blockSize: must lie between the prefix length of cidr ("
                + cidr.length()
                + ") and "
                + cidr.addressBits());
      } else if (spec.type() == AddressType.SERVICE && size != cidr.length()) {
        errors.add(
            "spec.blockSize: a service pool is a single block: blockSize must equal the prefix length of cidr ("
                + cidr.length()
                + ")");
      }
    }
    var communities = spec.communities();
    for (int i = 0; communities != null && i < communities.size(); i++) {
      if (!AdvertisementAttrs.isCommunity(communities.get(i))) {
        errors.add(
            "spec.communities["
                + i
                + "]: "
                + AdvertisementAttrs.COMMUNITY_MESSAGE
                + " (got '"
                + communities.get(i)
                + "')");
      }
    }
    u32("spec.localPref", spec.localPref(), errors);
    u32("spec.med", spec.med(), errors);
    return errors;
  }

  private static void u32(String path, Long value, List<String> errors) {
    if (value != null && (value < 0 || value > AdvertisementAttrs.MAX_U32)) {
      errors.add(path + ": must be 0..4294967295");
    }
  }

  /** Transition rules: what may not change on update. */
  public static List<String> addressPoolUpdate(AddressPoolSpec old, AddressPoolSpec now) {
    var errors = new ArrayList<String>();
    if (!java.util.Objects.equals(old.cidr(), now.cidr())) {
      errors.add("spec.cidr: is immutable");
    }
    if (old.type() != now.type()) {
      errors.add("spec.type: is immutable");
    }
    if (!java.util.Objects.equals(old.blockSize(), now.blockSize())) {
      errors.add("spec.blockSize: is immutable");
    }
    return errors;
  }

  public static List<String> bgpPeer(BGPPeerSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return List.of("spec: required");
    }
    asn("spec.asn", spec.asn(), true, errors);
    address("spec.addr", spec.addr(), false, errors);
    interfaceName("spec.interface", spec.interfaceName(), errors);
    if ((spec.addr() == null) == (spec.interfaceName() == null)) {
      errors.add("spec.addr: exactly one of addr and interface");
    }
    timers(spec.holdTime(), spec.keepaliveTime(), errors);
    if (spec.nodeBGPRef() == null || spec.nodeBGPRef().isEmpty()) {
      errors.add("spec.nodeBGPRef: required");
    }
    if (spec.speaker() == null
        || spec.speaker().path() == null
        || spec.speaker().path().isEmpty()) {
      errors.add("spec.speaker.path: required");
    }
    return errors;
  }

  public static List<String> bgpPeerUpdate(BGPPeerSpec old, BGPPeerSpec now) {
    var errors = new ArrayList<String>();
    if (!java.util.Objects.equals(old.asn(), now.asn())) {
      errors.add("spec.asn: is immutable");
    }
    if (!java.util.Objects.equals(old.addr(), now.addr())) {
      errors.add("spec.addr: is immutable");
    }
    if (!java.util.Objects.equals(old.interfaceName(), now.interfaceName())) {
      errors.add("spec.interface: is immutable");
    }
    if (!java.util.Objects.equals(old.nodeBGPRef(), now.nodeBGPRef())) {
      errors.add("spec.nodeBGPRef: is immutable");
    }
    return errors;
  }

  public static List<String> bgpPeerTemplate(String path, BGPPeerTemplateSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return errors;
    }
    asn(path + ".asn", spec.asn(), false, errors);
    address(path + ".addr", spec.addr(), false, errors);
    interfaceName(path + ".interface", spec.interfaceName(), errors);
    if (spec.addr() != null && spec.interfaceName() != null) {
      errors.add(path + ".addr: at most one of addr and interface");
    }
    timers(spec.holdTime(), spec.keepaliveTime(), errors);
    return errors;
  }

  public static List<String> clusterBgp(ClusterBGPSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return List.of("spec: required");
    }
    if (spec.asnSelector() == null || spec.asnSelector().from() == null) {
      errors.add("spec.asnSelector.from: required (asn or label)");
    } else {
      if (spec.asnSelector().from() == AsnSelector.From.ASN && spec.asnSelector().asn() == null) {
        errors.add("spec.asnSelector.asn: from: asn needs asn");
      }
      asn("spec.asnSelector.asn", spec.asnSelector().asn(), false, errors);
    }
    if (spec.routerIdSelector() == null || spec.routerIdSelector().from() == null) {
      errors.add("spec.routerIdSelector.from: required (internalAddress, label or routerId)");
    } else {
      var id = spec.routerIdSelector().routerId();
      if (spec.routerIdSelector().from() == RouterIdSelector.From.ROUTER_ID && id == null) {
        errors.add("spec.routerIdSelector.routerId: from: routerId needs routerId");
      }
      routerId("spec.routerIdSelector.routerId", id, errors);
    }
    if (spec.speaker() == null
        || spec.speaker().path() == null
        || spec.speaker().path().isEmpty()) {
      errors.add("spec.speaker.path: required");
    }
    if (spec.peers() != null) {
      for (int i = 0; i < spec.peers().size(); i++) {
        var peer = spec.peers().get(i);
        var path = "spec.peers[" + i + "]";
        var config = peer.peerConfig();
        if (peer.peerTemplateRef() == null
            && (config == null
                || config.asn() == null
                || (config.addr() == null && config.interfaceName() == null))) {
          errors.add(
              path
                  + ": a peer needs peerTemplateRef, or a peerConfig with asn and addr or"
                  + " interface");
        }
        errors.addAll(bgpPeerTemplate(path + ".peerConfig", config));
      }
    }
    return errors;
  }

  public static List<String> nodeBgp(NodeBGPSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return List.of("spec: required");
    }
    asn("spec.asn", spec.asn(), true, errors);
    if (spec.routerId() == null) {
      errors.add("spec.routerId: required");
    }
    routerId("spec.routerId", spec.routerId(), errors);
    return errors;
  }

  public static List<String> bgpAdvertisement(BGPAdvertisementSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return List.of("spec: required");
    }
    IpPrefix cidr = cidr("spec.cidr", spec.cidr(), errors);
    if (spec.protocol() == null) {
      errors.add("spec.protocol: required (ipv4 or ipv6)");
    } else if (cidr != null && cidr.isIpv4() != (spec.protocol() == Protocol.IPV4)) {
      errors.add("spec.protocol: must be the address family of cidr");
    }
    if (spec.type() == null) {
      errors.add("spec.type: required (service or pod)");
    }
    var attrs = spec.attrs();
    for (int i = 0; attrs != null && i < attrs.size(); i++) {
      if (!AdvertisementAttrs.isAttr(attrs.get(i))) {
        errors.add(
            "spec.attrs["
                + i
                + "]: "
                + AdvertisementAttrs.ATTR_MESSAGE
                + " (got '"
                + attrs.get(i)
                + "')");
      }
    }
    return errors;
  }

  public static List<String> egress(EgressSpec spec) {
    var errors = new ArrayList<String>();
    if (spec == null) {
      return List.of("spec: required");
    }
    if (spec.destinations() == null || spec.destinations().isEmpty()) {
      errors.add("spec.destinations: required (at least one CIDR)");
    } else {
      for (int i = 0; i < spec.destinations().size(); i++) {
        cidr("spec.destinations[" + i + "]", spec.destinations().get(i), errors);
      }
    }
    if (spec.replicas() != null && (spec.replicas() < 0 || spec.replicas() > 1000)) {
      errors.add("spec.replicas: must be 0..1000");
    }
    var source = spec.sourceAddress();
    if (source != null) {
      if (source.pool() == null) {
        errors.add("spec.sourceAddress.pool: required");
      }
      address("spec.sourceAddress.address", source.address(), false, errors);
      var ports = source.portsOrEmpty();
      for (int i = 0; i < ports.size(); i++) {
        var port = ports.get(i);
        var path = "spec.sourceAddress.ports[" + i + "]";
        if (port.port() == null || port.port() < 1 || port.port() > 65535) {
          errors.add(path + ".port: must be 1..65535");
        }
        if (port.service() == null) {
          errors.add(path + ".service: required");
        }
        if (port.protocol() != null && !List.of("TCP", "UDP").contains(port.protocol())) {
          errors.add(path + ".protocol: must be TCP or UDP");
        }
      }
    }
    return errors;
  }

  private static IpPrefix cidr(String path, String text, List<String> errors) {
    if (text == null) {
      errors.add(path + ": required");
      return null;
    }
    try {
      return IpPrefix.parseNetwork(text);
    } catch (IllegalArgumentException e) {
      errors.add(path + ": " + e.getMessage());
      return null;
    }
  }

  private static void asn(String path, Long asn, boolean required, List<String> errors) {
    if (asn == null) {
      if (required) {
        errors.add(path + ": required");
      }
    } else if (asn < 1 || asn > MAX_ASN) {
      errors.add(path + ": must be 1.." + MAX_ASN);
    }
  }

  /** A Linux interface name: 1..15 characters, none of '/', ':' or whitespace. */
  private static void interfaceName(String path, String name, List<String> errors) {
    if (name != null
        && (name.isEmpty()
            || name.length() > Limits.INTERFACE
            || !name.matches(Limits.INTERFACE_REGEX))) {
      errors.add(path + ": must be an interface name (1-15 characters, no '/', ':' or space)");
    }
  }

  private static void address(String path, String text, boolean required, List<String> errors) {
    if (text == null) {
      if (required) {
        errors.add(path + ": required");
      }
      return;
    }
    try {
      Ip.parse(text);
    } catch (IllegalArgumentException e) {
      errors.add(path + ": must be an IPv4 or IPv6 address");
    }
  }

  private static void routerId(String path, String text, List<String> errors) {
    if (text == null) {
      return;
    }
    try {
      if (!(Ip.parse(text) instanceof java.net.Inet4Address)) {
        errors.add(path + ": must be an IPv4 address (RFC 6286: a 4-octet BGP Identifier)");
      }
    } catch (IllegalArgumentException e) {
      errors.add(path + ": must be an IPv4 address (RFC 6286: a 4-octet BGP Identifier)");
    }
  }

  // RFC 4271 §4.2: the Hold Time is zero or at least three seconds
  private static void timers(Long holdTime, Long keepaliveTime, List<String> errors) {
    if (holdTime != null && (holdTime < 0 || holdTime > 65535 || (holdTime != 0 && holdTime < 3))) {
      errors.add("holdTime: must be 0 or 3..65535 (RFC 4271 §4.2)");
    }
    if (holdTime != null && keepaliveTime != null && holdTime != 0 && keepaliveTime >= holdTime) {
      errors.add("keepaliveTime: must be shorter than holdTime");
    }
  }
}
