package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/**
 * How the agent reaches the node's BGP speaker: {@code path} is its gRPC endpoint ({@code
 * host:port}), {@code timeout} in seconds, {@code multipath} turns on ECMP in the speaker.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SpeakerConfig(
    @Required @Size(min = 1, max = 256) String path, @Min(0) Long timeout, Boolean multipath) {}
