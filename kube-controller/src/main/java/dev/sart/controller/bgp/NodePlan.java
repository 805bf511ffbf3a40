package dev.sart.controller.bgp;

import dev.sart.crds.AsnSelector;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.BGPPeerTemplate;
import dev.sart.crds.BGPPeerTemplateSpec;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.RouterIdSelector;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Node;
import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the ClusterBGPs want for one node: its NodeBGP spec and the BGPPeers generated for it. Pure.
 *
 * @param spec the NodeBGP spec, or null when no ClusterBGP selects the node (or its ASN / router id
 *     cannot be found)
 * @param clusters the ClusterBGPs that select the node, by name
 * @param peers generated BGPPeers by name
 * @param problems why a ClusterBGP or a peer was left out
 */
public record NodePlan(
    NodeBGPSpec spec,
    List<String> clusters,
    Map<String, BGPPeerSpec> peers,
    List<String> problems) {

  /** A selector matches when every one of its labels matches (an empty selector matches all). */
  public static boolean matches(Map<String, String> selector, Map<String, String> labels) {
    if (selector == null || selector.isEmpty()) {
      return true;
    }
    var have = labels == null ? Map.<String, String>of() : labels;
    return selector.entrySet().stream()
        .allMatch(e -> Objects.equals(have.get(e.getKey()), e.getValue()));
  }

  /**
   * sart's rule (its node watcher): a node matches when any one label of the selector matches (an
   * empty selector matches all).
   */
  public static boolean matchesAny(Map<String, String> selector, Map<String, String> labels) {
    if (selector == null || selector.isEmpty()) {
      return true;
    }
    var have = labels == null ? Map.<String, String>of() : labels;
    return selector.entrySet().stream()
        .anyMatch(e -> Objects.equals(have.get(e.getKey()), e.getValue()));
  }

  /** Node names a warning lists at most; the rest are counted. */
  static final int NAMED_NODES = 10;

  /**
   * The {@code SartSelectorDiffers} condition for the nodes sart's rule would select and ours does
   * not (sorted), or null when there are none.
   */
  public static java.util.List<dev.sart.crds.ClusterBGPCondition> sartSelectorWarning(
      java.util.SortedSet<String> sartOnly) {
    if (sartOnly.isEmpty()) {
      return null;
    }
    var named = sartOnly.stream().limit(NAMED_NODES).toList();
    var message =
        new StringBuilder("under sart's rule (a node matches when any one label of nodeSelector")
            .append(" matches) this ClusterBGP would also select ")
            .append(String.join(", ", named));
    if (sartOnly.size() > named.size()) {
      message.append(" and ").append(sartOnly.size() - named.size()).append(" more");
    }
    message.append("; here a node must match every label (Kubernetes' rule)");
    return java.util.List.of(
        new dev.sart.crds.ClusterBGPCondition(
            dev.sart.crds.ClusterBGPStatus.SART_SELECTOR_DIFFERS,
            "True",
            "AnyLabelMatchesMoreNodes",
            message.toString()));
  }

  public static NodePlan of(
      Node node, List<ClusterBGP> all, Function<String, BGPPeerTemplate> templates) {
    var labels =
        node.getMetadata().getLabels() == null
            ? Map.<String, String>of()
            : node.getMetadata().getLabels();
    var name = node.getMetadata().getName();
    var problems = new ArrayList<String>();
    var selecting =
        all.stream()
            .filter(c -> c.getSpec() != null && c.getMetadata().getDeletionTimestamp() == null)
            .filter(c -> matches(c.getSpec().nodeSelector(), labels))
            .sorted(Comparator.comparing(c -> c.getMetadata().getName()))
            .toList();
    NodeBGPSpec spec = null;
    var clusters = new ArrayList<String>();
    var peers = new LinkedHashMap<String, BGPPeerSpec>();
    for (var cluster : selecting) {
      var cname = cluster.getMetadata().getName();
      Long asn;
      String routerId;
      try {
        asn = asn(cluster.getSpec().asnSelector(), labels);
        routerId = routerId(cluster.getSpec().routerIdSelector(), node);
      } catch (IllegalArgumentException e) {
        problems.add("ClusterBGP " + cname + ": node " + name + ": " + e.getMessage());
        continue;
      }
      if (spec == null) {
        spec = new NodeBGPSpec(asn, routerId, cluster.getSpec().speaker(), null);
      } else if (!spec.asn().equals(asn) || !spec.routerId().equals(routerId)) {
        problems.add(
            "ClusterBGP "
                + cname
                + ": node "
                + name
                + " already has ASN "
                + spec.asn()
                + " and router id "
                + spec.routerId()
                + " from another ClusterBGP");
        continue;
      }
      clusters.add(cname);
      if (cluster.getSpec().peers() == null) {
        continue;
      }
      for (var peer : cluster.getSpec().peers()) {
        if (!matches(peer.nodeBGPSelector(), labels)) {
          continue;
        }
        BGPPeerTemplateSpec base = null;
        if (peer.peerTemplateRef() != null) {
          var template = templates.apply(peer.peerTemplateRef());
          if (template == null || template.getSpec() == null) {
            problems.add(
                "ClusterBGP "
                    + cname
                    + ": BGPPeerTemplate "
                    + peer.peerTemplateRef()
                    + " not found");
            continue;
          }
          base = template.getSpec();
        }
        var merged = merge(base, peer.peerConfig());
        if (merged.asn() == null || (merged.addr() == null && merged.interfaceName() == null)) {
          problems.add("ClusterBGP " + cname + ": a peer has no asn, or no addr or interface");
          continue;
        }
        var peerName =
            merged.addr() != null
                ? peerName(peer.peerTemplateRef(), name, merged.asn(), merged.addr())
                : interfacePeerName(
                    peer.peerTemplateRef(), name, merged.asn(), merged.interfaceName());
        peers.putIfAbsent(
            peerName,
            new BGPPeerSpec(
                merged.asn(),
                merged.addr(),
                merged.holdTime(),
                merged.keepaliveTime(),
                merged.capabilities(),
                name,
                cname,
                cluster.getSpec().speaker(),
                merged.groups(),
                merged.bfd(),
                merged.gracefulRestart(),
                merged.interfaceName()));
      }
    }
    return new NodePlan(spec, clusters, peers, problems);
  }

  /**
   * {@code <template>-<node>-<asn>-<addr>}, or {@code <node>-<asn>-<addr>} for an inline peer (as
   * sart).
   */
  public static String peerName(String template, String node, long asn, String addr) {
    var address = Ip.format(Ip.parse(addr)).replace(':', '-');
    return (template == null ? "" : template + "-") + node + "-" + asn + "-" + address;
  }

  /**
   * {@code <template>-<node>-<asn>-if-<interface>} for an unnumbered neighbour; the interface name
   * lower-cased with anything but letters, digits, '-' and '.' as '-' (an object name is a DNS
   * subdomain).
   */
  public static String interfacePeerName(String template, String node, long asn, String iface) {
    var clean = iface.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
    return (template == null ? "" : template + "-") + node + "-" + asn + "-if-" + clean;
  }

  /**
   * Inline settings override the template's, field by field; {@code addr} and {@code interface} are
   * one field (the neighbour), so an inline one of either replaces the template's.
   */
  static BGPPeerTemplateSpec merge(BGPPeerTemplateSpec template, BGPPeerTemplateSpec inline) {
    if (template == null) {
      return inline == null ? new BGPPeerTemplateSpec(null, null, null, null, null, null) : inline;
    }
    if (inline == null) {
      return template;
    }
    return new BGPPeerTemplateSpec(
        inline.asn() != null ? inline.asn() : template.asn(),
        neighborInline(inline) ? inline.addr() : template.addr(),
        inline.capabilities() != null ? inline.capabilities() : template.capabilities(),
        inline.holdTime() != null ? inline.holdTime() : template.holdTime(),
        inline.keepaliveTime() != null ? inline.keepaliveTime() : template.keepaliveTime(),
        inline.groups() != null ? inline.groups() : template.groups(),
        inline.bfd() != null ? inline.bfd() : template.bfd(),
        inline.gracefulRestart() != null ? inline.gracefulRestart() : template.gracefulRestart(),
        neighborInline(inline) ? inline.interfaceName() : template.interfaceName());
  }

  private static boolean neighborInline(BGPPeerTemplateSpec inline) {
    return inline.addr() != null || inline.interfaceName() != null;
  }

  static Long asn(AsnSelector selector, Map<String, String> labels) {
    if (selector.from() == AsnSelector.From.ASN) {
      return selector.asn();
    }
    var text = labels.get(Sart.ASN_NODE_LABEL);
    if (text == null) {
      throw new IllegalArgumentException("no label " + Sart.ASN_NODE_LABEL);
    }
    try {
      long asn = Long.parseLong(text);
      if (asn < 1 || asn > 4_294_967_295L) {
        throw new NumberFormatException();
      }
      return asn;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "label " + Sart.ASN_NODE_LABEL + "=" + text + " is not an ASN");
    }
  }

  static String routerId(RouterIdSelector selector, Node node) {
    String text =
        switch (selector.from()) {
          case ROUTER_ID -> selector.routerId();
          case LABEL -> {
            var labels = node.getMetadata().getLabels();
            var value = labels == null ? null : labels.get(Sart.ROUTER_ID_NODE_LABEL);
            if (value == null) {
              throw new IllegalArgumentException("no label " + Sart.ROUTER_ID_NODE_LABEL);
            }
            yield value;
          }
          case INTERNAL_ADDRESS -> {
            var addresses = node.getStatus() == null ? null : node.getStatus().getAddresses();
            if (addresses == null) {
              throw new IllegalArgumentException("no InternalIP address");
            }
            yield addresses.stream()
                .filter(a -> "InternalIP".equals(a.getType()))
                .map(a -> a.getAddress())
                .filter(a -> a != null && !a.contains(":"))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no IPv4 InternalIP address"));
          }
        };
    try {
      if (!(Ip.parse(text) instanceof Inet4Address)) {
        throw new IllegalArgumentException("router id " + text + " is not IPv4");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("router id " + text + " is not an IPv4 address");
    }
    return text;
  }
}
