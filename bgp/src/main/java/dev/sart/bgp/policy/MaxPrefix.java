package dev.sart.bgp.policy;

import java.time.Duration;

/**
 * The most prefixes a neighbour may have accepted (after the import policy) in each family. Beyond
 * it the session is closed with Cease / Maximum Number of Prefixes Reached (RFC 4486 §4), unless
 * {@code warningOnly}.
 *
 * @param limit the upper bound per family (1..2^32-1)
 * @param warningOnly only log (once per family and session) instead of closing
 * @param restart after closing, restart the session by itself this much later; null: stay down
 *     until the neighbour is reconfigured or an operator restarts it
 */
public record MaxPrefix(long limit, boolean warningOnly, Duration restart) {

  public MaxPrefix {
    if (limit < 1 || limit > 0xffff_ffffL) {
      throw new IllegalArgumentException(
          "the prefix limit is 1..4294967295 (it goes into a 4-octet field): " + limit);
    }
    if (restart != null && (restart.isNegative() || restart.isZero())) {
      throw new IllegalArgumentException("the restart time must be positive: " + restart);
    }
  }
}
