package dev.sart.controller.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.Sart;
import dev.sart.crds.Validation;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The admission rules that need other objects, plus sart's mutating webhooks (sart.md §6.4), keyed
 * by sart's webhook paths. The object-local rules ({@link Validation}) run here too, for API
 * servers whose CEL lacks the IP/CIDR functions.
 */
public final class Admission {
  public static final String VALIDATE_ADDRESS_POOL =
      "/validate-sart-terassyi-net-v1alpha2-addresspool";
  public static final String VALIDATE_BGP_PEER = "/validate-sart-terassyi-net-v1alpha2-bgppeer";
  public static final String MUTATE_BGP_PEER = "/mutate-sart-terassyi-net-v1alpha2-bgppeer";
  public static final String VALIDATE_BGP_ADVERTISEMENT =
      "/validate-sart-terassyi-net-v1alpha2-bgpadvertisement";
  public static final String MUTATE_ADDRESS_BLOCK =
      "/mutate-sart-terassyi-net-v1alpha2-addressblock";
  public static final String MUTATE_SERVICE = "/mutate-v1-service";

  /**
   * One webhook as the API server is told of it (kube-controller/manifests/webhook.yaml, checked
   * against this list by WebhookManifestTest): sart's name, path, kind of configuration and
   * resource.
   */
  public record Hook(
      String name, String path, boolean mutating, String group, String version, String resource) {}

  public static final List<Hook> HOOKS =
      List.of(
          new Hook(
              "vaddresspool.kb.io",
              VALIDATE_ADDRESS_POOL,
              false,
              Sart.GROUP,
              Sart.VERSION,
              "addresspools"),
          new Hook(
              "vbgppeer.kb.io", VALIDATE_BGP_PEER, false, Sart.GROUP, Sart.VERSION, "bgppeers"),
          new Hook(
              "vbgpadvertisement.kb.io",
              VALIDATE_BGP_ADVERTISEMENT,
              false,
              Sart.GROUP,
              Sart.VERSION,
              "bgpadvertisements"),
          new Hook("mbgppeer.kb.io", MUTATE_BGP_PEER, true, Sart.GROUP, Sart.VERSION, "bgppeers"),
          new Hook(
              "maddressblock.kb.io",
              MUTATE_ADDRESS_BLOCK,
              true,
              Sart.GROUP,
              Sart.VERSION,
              "addressblocks"),
          new Hook("mservice.kb.io", MUTATE_SERVICE, true, "", "v1", "services"));
  public static final List<String> PATHS = HOOKS.stream().map(Hook::path).toList();

  private final KubernetesClient client;

  public Admission(KubernetesClient client) {
    this.client = client;
  }

  /**
   * One request: {@code operation} CREATE/UPDATE/DELETE, {@code object} and {@code oldObject} as
   * JSON.
   */
  public Verdict review(String path, String operation, JsonNode object, JsonNode oldObject) {
    if ("DELETE".equals(operation) || object == null || object.isNull()) {
      return Verdict.allow();
    }
    boolean update = "UPDATE".equals(operation) && oldObject != null && !oldObject.isNull();
    return switch (path) {
      case VALIDATE_ADDRESS_POOL ->
          addressPool(
              as(object, AddressPool.class), update ? as(oldObject, AddressPool.class) : null);
      case VALIDATE_BGP_PEER ->
          bgpPeer(as(object, BGPPeer.class), update ? as(oldObject, BGPPeer.class) : null);
      case MUTATE_BGP_PEER -> labelPeer(as(object, BGPPeer.class), has(object, "labels"));
      case VALIDATE_BGP_ADVERTISEMENT ->
          errors(Validation.bgpAdvertisement(as(object, BGPAdvertisement.class).getSpec()));
      case MUTATE_ADDRESS_BLOCK ->
          labelBlock(as(object, AddressBlock.class), has(object, "labels"));
      case MUTATE_SERVICE ->
          service(
              as(object, Service.class),
              update ? as(oldObject, Service.class) : null,
              has(object, "annotations"));
      default -> Verdict.deny("no webhook at " + path);
    };
  }

  /**
   * Whether the JSON as sent has {@code metadata.<field>} (a patch must not add below a missing
   * member).
   */
  private static boolean has(JsonNode object, String field) {
    var value = object.path("metadata").get(field);
    return value != null && value.isObject();
  }

  private static <T> T as(JsonNode node, Class<T> type) {
    return Serialization.unmarshal(node.toString(), type);
  }

  private static Verdict errors(List<String> errors) {
    return errors.isEmpty() ? Verdict.allow() : Verdict.deny(String.join("; ", errors));
  }

  private Verdict addressPool(AddressPool pool, AddressPool old) {
    var errors = new ArrayList<>(Validation.addressPool(pool.getSpec()));
    if (old != null && old.getSpec() != null) {
      errors.addAll(Validation.addressPoolUpdate(old.getSpec(), pool.getSpec()));
    }
    if (!errors.isEmpty()) {
      return errors(errors);
    }
    var cidr = IpPrefix.parseCidr(pool.getSpec().cidr());
    var name = pool.getMetadata().getName();
    for (var other : client.resources(AddressPool.class).list().getItems()) {
      if (other.getMetadata().getName().equals(name) || other.getSpec() == null) {
        continue;
      }
      IpPrefix otherCidr;
      try {
        otherCidr = IpPrefix.parseCidr(other.getSpec().cidr());
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (cidr.overlaps(otherCidr)) {
        errors.add(
            "spec.cidr: "
                + cidr
                + " overlaps AddressPool "
                + other.getMetadata().getName()
                + " ("
                + otherCidr
                + ")");
      }
      // one auto-assign pool per type and address family (sart: per type; a family each makes
      // dual-stack work)
      if (pool.getSpec().autoAssignOrFalse()
          && other.getSpec().autoAssignOrFalse()
          && other.getSpec().type() == pool.getSpec().type()
          && otherCidr.isIpv4() == cidr.isIpv4()) {
        errors.add(
            "spec.autoAssign: AddressPool "
                + other.getMetadata().getName()
                + " is already the auto-assign "
                + (cidr.isIpv4() ? "IPv4 " : "IPv6 ")
                + pool.getSpec().type().name().toLowerCase(java.util.Locale.ROOT)
                + " pool");
      }
    }
    return errors(errors);
  }

  private Verdict bgpPeer(BGPPeer peer, BGPPeer old) {
    var errors = new ArrayList<>(Validation.bgpPeer(peer.getSpec()));
    if (old != null && old.getSpec() != null) {
      errors.addAll(Validation.bgpPeerUpdate(old.getSpec(), peer.getSpec()));
      return errors(errors);
    }
    if (!errors.isEmpty()) {
      return errors(errors);
    }
    var spec = peer.getSpec();
    for (var other : client.resources(BGPPeer.class).list().getItems()) {
      var o = other.getSpec();
      if (o != null
          && !other.getMetadata().getName().equals(peer.getMetadata().getName())
          && Objects.equals(o.nodeBGPRef(), spec.nodeBGPRef())
          && Objects.equals(o.asn(), spec.asn())
          && (o.addr() != null
              ? sameAddress(o.addr(), spec.addr())
              : Objects.equals(o.interfaceName(), spec.interfaceName()))) {
        return Verdict.deny(
            "BGPPeer "
                + other.getMetadata().getName()
                + " already peers node "
                + spec.nodeBGPRef()
                + " with AS"
                + spec.asn()
                + (spec.addr() != null ? " at " + spec.addr() : " on " + spec.interfaceName()));
      }
    }
    return Verdict.allow();
  }

  private static boolean sameAddress(String a, String b) {
    if (b == null) {
      return false;
    }
    try {
      return Ip.parse(a).equals(Ip.parse(b));
    } catch (IllegalArgumentException e) {
      return Objects.equals(a, b);
    }
  }

  /**
   * sart's mbgppeer: label {@code bgppeer.sart.terassyi.net/node=<nodeBGPRef>}; deny a label that
   * says otherwise.
   */
  private static Verdict labelPeer(BGPPeer peer, boolean hasLabels) {
    if (peer.getSpec() == null || peer.getSpec().nodeBGPRef() == null) {
      return Verdict.deny("spec.nodeBGPRef: required");
    }
    return label(
        hasLabels ? peer.getMetadata().getLabels() : null,
        Sart.BGP_PEER_NODE_LABEL,
        peer.getSpec().nodeBGPRef());
  }

  /** sart's maddressblock: a pod block needs nodeRef and gets the node label. */
  private static Verdict labelBlock(AddressBlock block, boolean hasLabels) {
    if (block.getSpec() == null || block.getSpec().type() != AddressType.POD) {
      return Verdict.allow();
    }
    if (block.getSpec().nodeRef() == null) {
      return Verdict.deny("spec.nodeRef: a pod AddressBlock needs nodeRef");
    }
    return label(
        hasLabels ? block.getMetadata().getLabels() : null,
        Sart.ADDRESS_BLOCK_NODE_LABEL,
        block.getSpec().nodeRef());
  }

  private static Verdict label(Map<String, String> labels, String key, String value) {
    if (labels != null && labels.containsKey(key)) {
      return value.equals(labels.get(key))
          ? Verdict.allow()
          : Verdict.deny("label " + key + "=" + labels.get(key) + " does not match " + value);
    }
    var escaped = key.replace("~", "~0").replace("/", "~1");
    return Verdict.patch(
        labels == null
            ? List.of(
                "{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{"
                    + Serialization.asJson(key)
                    + ":"
                    + Serialization.asJson(value)
                    + "}}")
            : List.of(
                "{\"op\":\"add\",\"path\":\"/metadata/labels/"
                    + escaped
                    + "\",\"value\":"
                    + Serialization.asJson(value)
                    + "}"));
  }

  /**
   * sart's mservice: when a Service stops being a LoadBalancer, record the addresses to release in
   * {@code service.sart.terassyi.net/release}; drop that annotation when it is a LoadBalancer
   * again. A LoadBalancer with a malformed path attribute annotation ({@code
   * sart.terassyi.net/communities}, {@code localPref}, {@code med}) is refused, naming it.
   */
  private static Verdict service(Service service, Service old, boolean hasAnnotations) {
    var annotations = hasAnnotations ? service.getMetadata().getAnnotations() : null;
    boolean lb = service.getSpec() != null && "LoadBalancer".equals(service.getSpec().getType());
    var escaped = Sart.RELEASE_ANNOTATION.replace("~", "~0").replace("/", "~1");
    if (lb) {
      // ours: a bad path attribute annotation is refused here rather than left out later
      var problems = dev.sart.controller.advert.PathAttributes.problems(annotations);
      if (!problems.isEmpty()) {
        return errors(problems);
      }
      return annotations != null && annotations.containsKey(Sart.RELEASE_ANNOTATION)
          ? Verdict.patch(
              List.of("{\"op\":\"remove\",\"path\":\"/metadata/annotations/" + escaped + "\"}"))
          : Verdict.allow();
    }
    if (old == null
        || old.getSpec() == null
        || !"LoadBalancer".equals(old.getSpec().getType())
        || old.getStatus() == null
        || old.getStatus().getLoadBalancer() == null
        || old.getStatus().getLoadBalancer().getIngress() == null) {
      return Verdict.allow();
    }
    var ips =
        old.getStatus().getLoadBalancer().getIngress().stream()
            .map(i -> i.getIp())
            .filter(Objects::nonNull)
            .toList();
    if (ips.isEmpty()) {
      return Verdict.allow();
    }
    var value = Serialization.asJson(String.join(",", ips));
    return Verdict.patch(
        annotations == null
            ? List.of(
                "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{"
                    + Serialization.asJson(Sart.RELEASE_ANNOTATION)
                    + ":"
                    + value
                    + "}}")
            : List.of(
                "{\"op\":\"add\",\"path\":\"/metadata/annotations/"
                    + escaped
                    + "\",\"value\":"
                    + value
                    + "}"));
  }
}
