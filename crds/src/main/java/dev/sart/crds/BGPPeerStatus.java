package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Min;
import java.util.List;

/**
 * {@code backoff}: how often the session was reset; {@code conditions}: session states, newest
 * last.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BGPPeerStatus(@Min(0) Long backoff, List<BGPPeerCondition> conditions) {}
