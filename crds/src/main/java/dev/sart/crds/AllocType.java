package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The allocator of a pool; sart knows only the bitset allocator. */
public enum AllocType {
  @JsonProperty("bit")
  BIT
}
