package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * {@code cidr} to announce, {@code type} (service or pod), {@code protocol} (its family), {@code
 * attrs}: its path attributes ({@link AdvertisementAttrs}: {@code community=A:B}, {@code
 * large_community=A:B:C}, {@code local_pref=N}, {@code med=N}), which sart declared and ignored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!isCIDR(self.cidr) || cidr(self.cidr).ip().family() == (self.protocol == 'ipv4' ? 4 : 6)",
    message = "protocol must be the address family of cidr",
    fieldPath = ".protocol")
public record BGPAdvertisementSpec(
    @ValidationRule(
            value = "isCIDR(self)",
            message = "cidr must be a CIDR such as 10.0.0.1/32 or 2001:db8::1/128")
        @ValidationRule(value = "self == oldSelf", message = "cidr is immutable")
        @Required
        @Size(max = Limits.CIDR)
        String cidr,
    @Required AddressType type,
    @Required Protocol protocol,
    @ValidationRule(
            value = "self.all(a, a.matches('" + AdvertisementAttrs.ATTR_REGEX + "'))",
            message = AdvertisementAttrs.ATTR_MESSAGE)
        @Size(max = Limits.ATTRS)
        List<@Size(max = Limits.ATTR) String> attrs) {

  /** This advertisement with other attributes. */
  public BGPAdvertisementSpec withAttrs(List<String> attrs) {
    return new BGPAdvertisementSpec(cidr, type, protocol, attrs);
  }

  /**
   * The path attributes ({@link AdvertisementAttrs#NONE} without {@code attrs}).
   *
   * @throws IllegalArgumentException when an item is malformed (the schema rejects it)
   */
  public AdvertisementAttrs pathAttrs() {
    return AdvertisementAttrs.ofAttrs(attrs);
  }
}
