package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * {@code cidr} of the block, {@code type}, the pool ({@code poolRef}) and, for pod blocks, the
 * node.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.type != 'pod' || has(self.nodeRef)",
    message = "a pod block needs nodeRef",
    fieldPath = ".nodeRef")
public record AddressBlockSpec(
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
    @ValidationRule(value = "self == oldSelf", message = "poolRef is immutable")
        @Required
        @Size(min = 1, max = Limits.NAME)
        String poolRef,
    @Size(max = Limits.NAME) String nodeRef,
    Boolean autoAssign) {

  public boolean autoAssignOrFalse() {
    return Boolean.TRUE.equals(autoAssign);
  }
}
