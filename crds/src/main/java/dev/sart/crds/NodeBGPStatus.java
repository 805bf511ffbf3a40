package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Min;
import java.util.List;

/**
 * {@code backoff}: how often the agent found its speaker restarted or unreachable; {@code
 * clusterBgpRefs}: the ClusterBGPs this node belongs to; {@code conditions}: speaker state, newest
 * last.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeBGPStatus(
    @Min(0) Long backoff, List<String> clusterBgpRefs, List<NodeBGPCondition> conditions) {}
