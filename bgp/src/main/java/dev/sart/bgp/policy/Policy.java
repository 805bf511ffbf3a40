package dev.sart.bgp.policy;

import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.PathAttributes;
import java.util.List;
import java.util.Objects;

/**
 * An import or export policy: statements tried in order, the first whose match holds decides; when
 * none does, the default (accept or reject) applies, without changes.
 *
 * <p>Evaluation is split in two so that the RIB can share results: {@link #decide} picks the
 * statement for one prefix (it depends on the prefix), {@link Statement#apply} computes the new
 * attributes (it depends only on the attributes), so all the prefixes of one UPDATE that end at the
 * same statement get one attribute set.
 *
 * @param name the name the neighbours' configuration refers to
 * @param statements the rules in order
 * @param defaultAccept what happens to a route no statement matches
 */
public record Policy(String name, List<Statement> statements, boolean defaultAccept) {

  /** Accepts everything unchanged (what a neighbour without a policy gets). */
  public static final Policy ACCEPT_ALL = new Policy("accept-all", List.of(), true);

  private static final Statement DEFAULT_ACCEPT = Statement.accept(Match.ANY);
  private static final Statement DEFAULT_REJECT = Statement.reject(Match.ANY);

  public Policy {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a policy needs a name");
    }
    statements = List.copyOf(statements);
  }

  public static Policy of(String name, boolean defaultAccept, Statement... statements) {
    return new Policy(name, List.of(statements), defaultAccept);
  }

  /** The statement that decides this route (a shared instance for the default). */
  public Statement decide(
      Family family, long high, long low, int length, PathAttributes attributes) {
    for (Statement s : statements) {
      if (s.match().matches(family, high, low, length, attributes)) {
        return s;
      }
    }
    return defaultAccept ? DEFAULT_ACCEPT : DEFAULT_REJECT;
  }

  /** The route's attributes after the policy, or null when it is rejected. */
  public PathAttributes evaluate(
      Family family, long high, long low, int length, PathAttributes attributes, long localAs) {
    return decide(family, high, low, length, attributes).apply(attributes, localAs);
  }
}
