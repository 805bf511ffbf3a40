package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * {@code cidr}: the range; {@code type}: service, pod or egress; {@code allocType}: only {@code
 * bit}; {@code blockSize}: the prefix length of the blocks a pod pool is cut into (default: the
 * pool's own prefix length; a service pool is one block); {@code autoAssign}: the pool used when a
 * Service or Pod names none (at most one per type, checked by the admission webhook).
 *
 * <p>{@code allowFirstLast} is ours: by default the network and broadcast addresses of an IPv4
 * service pool are never handed out (sart handed out the network address).
 *
 * <p>{@code allowedNamespaces} is ours, for {@code type: egress} only: the namespaces whose
 * Egresses may claim a static source address from the pool. The pool is cluster-scoped, so only
 * whoever may write AddressPools (the cluster admin) binds a pool to a namespace; an Egress in any
 * other namespace is refused an address (KEP-0275's security risk: users never pick an address an
 * admin did not give them).
 *
 * <p>{@code communities}, {@code localPref} (MetalLB's BGPAdvertisement names and syntax) and
 * {@code med} are ours too: the path attributes of every advertisement of the pool's addresses or
 * blocks ({@link AdvertisementAttrs}). LOCAL_PREF goes to internal (iBGP) peers only (RFC 4271
 * §5.1.5).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!isCIDR(self.cidr) || !has(self.blockSize) || (self.blockSize >= cidr(self.cidr).prefixLength()"
            + " && self.blockSize <= (cidr(self.cidr).ip().family() == 4 ? 32 : 128))",
    message =
        "blockSize must lie between the prefix length of cidr and the address length (32 or 128)",
    fieldPath = ".blockSize")
@ValidationRule(
    value =
        "!isCIDR(self.cidr) || self.type != 'service' || !has(self.blockSize)"
            + " || self.blockSize == cidr(self.cidr).prefixLength()",
    message = "a service pool is a single block: blockSize must equal the prefix length of cidr",
    fieldPath = ".blockSize")
@ValidationRule(
    value =
        "has(self.blockSize) == has(oldSelf.blockSize) && (!has(self.blockSize) || self.blockSize == oldSelf.blockSize)",
    message = "blockSize is immutable",
    fieldPath = ".blockSize")
@ValidationRule(
    value = "!has(self.allowedNamespaces) || self.type == 'egress'",
    message = "allowedNamespaces is only for pools of type egress",
    fieldPath = ".allowedNamespaces")
public record AddressPoolSpec(
    @ValidationRule(
            value = "isCIDR(self)",
            message = "cidr must be a CIDR such as 10.0.0.0/24 or 2001:db8::/64")
        @ValidationRule(
            value = "!isCIDR(self) || cidr(self).masked() == cidr(self)",
            message = "cidr must be a network address with no host bits set")
        @ValidationRule(value = "self == oldSelf", message = "cidr is immutable")
        @Required
        @Size(max = Limits.CIDR)
        String cidr,
    @ValidationRule(value = "self == oldSelf", message = "type is immutable") @Required
        AddressType type,
    AllocType allocType,
    @Min(0) @Max(128) Integer blockSize,
    Boolean autoAssign,
    Boolean allowFirstLast,
    @ValidationRule(
            value = "self.all(a, a.matches('" + AdvertisementAttrs.COMMUNITY_REGEX + "'))",
            message = AdvertisementAttrs.COMMUNITY_MESSAGE)
        @Size(max = Limits.ATTRS)
        List<@Size(max = Limits.COMMUNITY) String> communities,
    @Min(0) @Max(AdvertisementAttrs.MAX_U32) Long localPref,
    @Min(0) @Max(AdvertisementAttrs.MAX_U32) Long med,
    @Size(max = Limits.POOL_NAMESPACES)
        List<@Size(max = Limits.LABEL_VALUE) String> allowedNamespaces) {

  public AddressPoolSpec(String cidr, AddressType type, Integer blockSize, Boolean autoAssign) {
    this(cidr, type, AllocType.BIT, blockSize, autoAssign, null);
  }

  public AddressPoolSpec(
      String cidr,
      AddressType type,
      AllocType allocType,
      Integer blockSize,
      Boolean autoAssign,
      Boolean allowFirstLast) {
    this(cidr, type, allocType, blockSize, autoAssign, allowFirstLast, null, null, null, null);
  }

  /** An egress pool bound to {@code namespaces}. */
  public static AddressPoolSpec egress(String cidr, List<String> namespaces) {
    return new AddressPoolSpec(cidr, AddressType.EGRESS, AllocType.BIT, null, false, null)
        .withAllowedNamespaces(namespaces);
  }

  /** This pool bound to {@code namespaces} (egress pools; the schema refuses it on others). */
  public AddressPoolSpec withAllowedNamespaces(List<String> namespaces) {
    return new AddressPoolSpec(
        cidr,
        type,
        allocType,
        blockSize,
        autoAssign,
        allowFirstLast,
        communities,
        localPref,
        med,
        List.copyOf(namespaces));
  }

  /** Whether an Egress in {@code namespace} may claim from this pool (egress pools only). */
  public boolean allowsNamespace(String namespace) {
    return type == AddressType.EGRESS
        && allowedNamespaces != null
        && allowedNamespaces.contains(namespace);
  }

  /** This pool with the given path attributes. */
  public AddressPoolSpec withAttrs(List<String> communities, Long localPref, Long med) {
    return new AddressPoolSpec(
        cidr,
        type,
        allocType,
        blockSize,
        autoAssign,
        allowFirstLast,
        communities,
        localPref,
        med,
        allowedNamespaces);
  }

  /**
   * The path attributes of the pool's advertisements.
   *
   * @throws IllegalArgumentException when a community is malformed (the schema rejects it)
   */
  public AdvertisementAttrs attrs() {
    return AdvertisementAttrs.of(communities, localPref, med);
  }

  /**
   * {@code autoAssign} with its default (false); not an is/get name, so Jackson leaves it alone.
   */
  public boolean autoAssignOrFalse() {
    return Boolean.TRUE.equals(autoAssign);
  }

  /** {@code allowFirstLast} with its default (false). */
  public boolean allowFirstLastOrFalse() {
    return Boolean.TRUE.equals(allowFirstLast);
  }
}
