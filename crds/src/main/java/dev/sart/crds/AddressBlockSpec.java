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
    value = "isCIDR(self.cidr)",
    message = "cidr must be a CIDR such as 10.0.0.0/24 or 2001:db8::/64",
    fieldPath = ".cidr")
@ValidationRule(
    value = "!isCIDR(self.cidr) || cidr(self.cidr).masked() == cidr(self.cidr)",
    message = "cidr must be a network address with no host bits set",
    fieldPath = ".cidr")
@ValidationRule(
    value = "self.cidr == oldSelf.cidr",
    message = "cidr is immutable",
    fieldPath = ".cidr")
@ValidationRule(
    value = "self.type == oldSelf.type",
    message = "type is immutable",
    fieldPath = ".type")
@ValidationRule(
    value = "self.poolRef == oldSelf.poolRef",
    message = "poolRef is immutable",
    fieldPath = ".poolRef")
@ValidationRule(
    value = "self.type != 'pod' || has(self.nodeRef)",
    message = "a pod block needs nodeRef",
    fieldPath = ".nodeRef")
public record AddressBlockSpec(
    @Required @Size(max = 64) String cidr,
    @Required AddressType type,
    @Required @Size(min = 1, max = 253) String poolRef,
    @Size(max = 253) String nodeRef,
    Boolean autoAssign) {

  public boolean autoAssignOrFalse() {
    return Boolean.TRUE.equals(autoAssign);
  }
}
