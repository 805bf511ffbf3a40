package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * {@code cidr} to announce, {@code type} (service or pod), {@code protocol} (its family), {@code
 * attrs} (unused).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "isCIDR(self.cidr)",
    message = "cidr must be a CIDR such as 10.0.0.1/32 or 2001:db8::1/128",
    fieldPath = ".cidr")
@ValidationRule(
    value =
        "!isCIDR(self.cidr) || cidr(self.cidr).ip().family() == (self.protocol == 'ipv4' ? 4 : 6)",
    message = "protocol must be the address family of cidr",
    fieldPath = ".protocol")
@ValidationRule(
    value = "self.cidr == oldSelf.cidr",
    message = "cidr is immutable",
    fieldPath = ".cidr")
public record BGPAdvertisementSpec(
    @Required @Size(max = 64) String cidr,
    @Required AddressType type,
    @Required Protocol protocol,
    List<String> attrs) {}
