package dev.sart.bgp.policy;

import dev.sart.bgp.wire.PathAttributes;
import java.util.List;
import java.util.Objects;

/**
 * One rule of a policy: when {@link #match} holds, the route is accepted with {@link #actions}
 * applied (in order), or rejected.
 *
 * @param match the conditions
 * @param accept accept (and apply the actions) or reject
 * @param actions the changes of an accepted route; must be empty for a rejecting statement
 */
public record Statement(Match match, boolean accept, List<Action> actions) {

  public Statement {
    Objects.requireNonNull(match, "match");
    actions = List.copyOf(actions);
    if (!accept && !actions.isEmpty()) {
      throw new IllegalArgumentException("a rejecting statement has no actions");
    }
  }

  public static Statement accept(Match match, Action... actions) {
    return new Statement(match, true, List.of(actions));
  }

  public static Statement reject(Match match) {
    return new Statement(match, false, List.of());
  }

  /** The attributes after the actions, or null when the statement rejects. */
  public PathAttributes apply(PathAttributes attributes, long localAs) {
    if (!accept) {
      return null;
    }
    PathAttributes a = attributes;
    for (Action action : actions) {
      a = action.apply(a, localAs);
    }
    return a;
  }
}
