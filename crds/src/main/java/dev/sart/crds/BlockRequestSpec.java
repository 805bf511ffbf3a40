package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The pod pool and the node that wants a block of it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self == oldSelf", message = "a BlockRequest is immutable")
public record BlockRequestSpec(
    @Required @Size(min = 1, max = Limits.NAME) String pool,
    @Required @Size(min = 1, max = Limits.NAME) String node) {}
