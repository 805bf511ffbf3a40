package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Empty in sart; kept so that the status subresource exists. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AddressPoolStatus() {}
