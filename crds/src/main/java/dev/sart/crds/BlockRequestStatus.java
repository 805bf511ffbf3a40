package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * sart's status is empty. Ours says which block answered the request, or why none could ({@code
 * error}, e.g. the pool is full or not a pod pool).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BlockRequestStatus(String block, String error) {}
