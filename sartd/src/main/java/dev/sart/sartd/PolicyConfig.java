package dev.sart.sartd;

import dev.sart.bgp.policy.Action;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The policy keys of the {@code sartd bgp} YAML → {@link dev.sart.bgp.policy} values; errors name
 * the policy.
 */
final class PolicyConfig {
  private PolicyConfig() {}

  /** The file's policies, their prefix lists resolved. */
  static List<Policy> policies(BgpConfigFile cfg) {
    Map<String, PrefixList> lists = new HashMap<>();
    if (cfg.prefixLists() != null) {
      cfg.prefixLists()
          .forEach(
              (name, entries) -> {
                try {
                  lists.put(
                      name,
                      new PrefixList(name, entries.stream().map(PrefixList.Entry::parse).toList()));
                } catch (IllegalArgumentException e) {
                  throw new IllegalArgumentException(
                      "prefix_lists." + name + ": " + e.getMessage(), e);
                }
              });
    }
    List<Policy> out = new ArrayList<>();
    List<BgpConfigFile.PolicyDef> defined =
        cfg.policies() == null ? List.<BgpConfigFile.PolicyDef>of() : cfg.policies();
    for (int k = 0; k < defined.size(); k++) {
      BgpConfigFile.PolicyDef p = defined.get(k);
      String at = "policies[" + k + "]";
      if (p.name() == null || p.name().isBlank()) {
        throw new IllegalArgumentException(at + ": a policy needs a 'name'");
      }
      List<Statement> statements = new ArrayList<>();
      List<BgpConfigFile.StatementDef> defs = p.statements() == null ? List.of() : p.statements();
      for (int i = 0; i < defs.size(); i++) {
        try {
          statements.add(statement(defs.get(i), lists, p.name() + "-" + (i + 1)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              at
                  + ".statements["
                  + i
                  + "]: policy '"
                  + p.name()
                  + "', statement "
                  + (i + 1)
                  + ": "
                  + e.getMessage(),
              e);
        }
      }
      out.add(
          new Policy(
              p.name(),
              statements,
              accept(
                  p.defaultAction(),
                  true,
                  at + ".default: the default of policy '" + p.name() + "'")));
    }
    return out;
  }

  private static Statement statement(
      BgpConfigFile.StatementDef s, Map<String, PrefixList> lists, String inlineName) {
    BgpConfigFile.MatchDef m = s.match();
    PrefixList list = null;
    List<Integer> communities = List.of();
    List<Match.LargeCommunity> large = List.of();
    if (m != null) {
      if (m.prefixList() != null && m.prefixes() != null) {
        throw new IllegalArgumentException("give 'prefix_list' or 'prefixes', not both");
      }
      if (m.prefixList() != null) {
        list = lists.get(m.prefixList());
        if (list == null) {
          throw new IllegalArgumentException(
              "no prefix list '" + m.prefixList() + "' (prefix_lists: " + lists.keySet() + ")");
        }
      } else if (m.prefixes() != null) {
        list =
            new PrefixList(inlineName, m.prefixes().stream().map(PrefixList.Entry::parse).toList());
      }
      communities = strings(m.communities()).stream().map(Match::parseCommunity).toList();
      large = strings(m.largeCommunities()).stream().map(Match.LargeCommunity::parse).toList();
    }
    List<Action> actions = new ArrayList<>();
    BgpConfigFile.SetDef set = s.set();
    if (set != null) {
      if (set.localPref() != null) {
        actions.add(new Action.SetLocalPref(set.localPref()));
      }
      if (set.med() != null) {
        actions.add(new Action.SetMed(set.med()));
      }
      if (set.communities() != null) {
        actions.add(
            new Action.SetCommunities(
                set.communities().stream().map(Match::parseCommunity).toList(), true));
      }
      if (set.addCommunities() != null) {
        actions.add(
            new Action.SetCommunities(
                set.addCommunities().stream().map(Match::parseCommunity).toList(), false));
      }
      if (set.largeCommunities() != null) {
        actions.add(
            new Action.SetLargeCommunities(
                set.largeCommunities().stream().map(Match.LargeCommunity::parse).toList(), true));
      }
      if (set.addLargeCommunities() != null) {
        actions.add(
            new Action.SetLargeCommunities(
                set.addLargeCommunities().stream().map(Match.LargeCommunity::parse).toList(),
                false));
      }
      if (set.prepend() != null) {
        actions.add(
            new Action.PrependAsPath(set.prependAs() == null ? 0 : set.prependAs(), set.prepend()));
      } else if (set.prependAs() != null) {
        throw new IllegalArgumentException("'prepend_as' needs 'prepend' (how many times)");
      }
    }
    return new Statement(
        new Match(list, communities, large), accept(s.action(), true, "action"), actions);
  }

  private static boolean accept(String action, boolean dflt, String what) {
    if (action == null) {
      return dflt;
    }
    return switch (action) {
      case "accept", "permit" -> true;
      case "reject", "deny" -> false;
      default ->
          throw new IllegalArgumentException(what + " is 'accept' or 'reject': '" + action + "'");
    };
  }

  private static List<String> strings(List<String> l) {
    return l == null ? List.of() : l;
  }

  /** A neighbour's policies, by the names of the policies defined (registered) already. */
  static PeerPolicy peerPolicy(
      BgpConfigFile.Neighbor n, java.util.function.Function<String, Policy> registry) {
    MaxPrefix max = null;
    if (n.maxPrefix() != null) {
      max =
          new MaxPrefix(
              n.maxPrefix(),
              Boolean.TRUE.equals(n.maxPrefixWarningOnly()),
              n.maxPrefixRestart() == null || n.maxPrefixRestart() == 0
                  ? null
                  : Duration.ofSeconds(n.maxPrefixRestart()));
    } else if (n.maxPrefixRestart() != null || n.maxPrefixWarningOnly() != null) {
      throw new IllegalArgumentException(
          (n.maxPrefixRestart() != null ? "max_prefix_restart" : "max_prefix_warning_only")
              + ": needs max_prefix");
    }
    return new PeerPolicy(
        lookup(registry, "import_policy", n.importPolicy()),
        lookup(registry, "export_policy", n.exportPolicy()),
        max,
        Boolean.TRUE.equals(n.softReconfigurationInbound()),
        Boolean.TRUE.equals(n.advertisePeerAs()));
  }

  private static Policy lookup(
      java.util.function.Function<String, Policy> registry, String key, String name) {
    try {
      return registry.apply(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }
}
