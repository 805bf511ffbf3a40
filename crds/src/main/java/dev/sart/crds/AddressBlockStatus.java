package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Min;

/** {@code index}: the position of the block inside its pool (block number, from 0). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AddressBlockStatus(@Min(0) Long index) {}
