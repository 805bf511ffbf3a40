package dev.sart.bgp.api;

import dev.sart.bgp.policy.Action;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.server.PolicyRegistry;
import dev.sart.proto.v1.PolicyStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** sart.v1 policy messages ↔ {@link dev.sart.bgp.policy} values, both ways, in one place. */
final class PolicyMapping {
  private PolicyMapping() {}

  static Policy policy(dev.sart.proto.v1.Policy p) {
    if (p.getName().isBlank()) {
      throw new IllegalArgumentException("a policy needs a name");
    }
    List<Statement> statements = new ArrayList<>();
    for (int i = 0; i < p.getStatementsCount(); i++) {
      try {
        statements.add(statement(p.getStatements(i), p.getName() + "-" + (i + 1)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "policy '" + p.getName() + "', statement " + (i + 1) + ": " + e.getMessage(), e);
      }
    }
    return new Policy(p.getName(), statements, !p.getDefaultReject());
  }

  private static Statement statement(PolicyStatement s, String listName) {
    PrefixList list =
        s.getPrefixListCount() == 0
            ? null
            : new PrefixList(
                s.getPrefixListName().isEmpty() ? listName : s.getPrefixListName(),
                s.getPrefixListList().stream().map(PrefixList.Entry::parse).toList());
    Match match =
        new Match(
            list,
            s.getCommunitiesList().stream().map(Match::parseCommunity).toList(),
            s.getLargeCommunitiesList().stream().map(Match.LargeCommunity::parse).toList());
    List<Action> actions = new ArrayList<>();
    if (s.hasSetLocalPref()) {
      actions.add(new Action.SetLocalPref(Integer.toUnsignedLong(s.getSetLocalPref())));
    }
    if (s.hasSetMed()) {
      actions.add(new Action.SetMed(Integer.toUnsignedLong(s.getSetMed())));
    }
    if (s.getAddCommunitiesCount() > 0 || s.getReplaceCommunities()) {
      actions.add(
          new Action.SetCommunities(
              s.getAddCommunitiesList().stream().map(Match::parseCommunity).toList(),
              s.getReplaceCommunities()));
    }
    if (s.getAddLargeCommunitiesCount() > 0 || s.getReplaceLargeCommunities()) {
      actions.add(
          new Action.SetLargeCommunities(
              s.getAddLargeCommunitiesList().stream().map(Match.LargeCommunity::parse).toList(),
              s.getReplaceLargeCommunities()));
    }
    if (s.getPrependCount() > 0) {
      actions.add(
          new Action.PrependAsPath(Integer.toUnsignedLong(s.getPrependAsn()), s.getPrependCount()));
    }
    if (s.getReject() && !actions.isEmpty()) {
      throw new IllegalArgumentException("a rejecting statement has no actions");
    }
    return new Statement(match, !s.getReject(), actions);
  }

  static dev.sart.proto.v1.Policy policy(Policy p) {
    dev.sart.proto.v1.Policy.Builder b =
        dev.sart.proto.v1.Policy.newBuilder()
            .setName(p.name())
            .setDefaultReject(!p.defaultAccept());
    for (Statement s : p.statements()) {
      PolicyStatement.Builder sb = PolicyStatement.newBuilder().setReject(!s.accept());
      Match m = s.match();
      if (m.prefixList() != null) {
        sb.setPrefixListName(m.prefixList().name());
        m.prefixList().entries().forEach(e -> sb.addPrefixList(e.toString()));
      }
      m.communities().forEach(c -> sb.addCommunities(community(c)));
      m.largeCommunities().forEach(c -> sb.addLargeCommunities(c.toString()));
      for (Action a : s.actions()) {
        switch (a) {
          case Action.SetLocalPref lp -> sb.setSetLocalPref((int) lp.value());
          case Action.SetMed med -> sb.setSetMed((int) med.value());
          case Action.SetCommunities c -> {
            sb.setReplaceCommunities(c.replace());
            c.communities().forEach(v -> sb.addAddCommunities(community(v)));
          }
          case Action.SetLargeCommunities c -> {
            sb.setReplaceLargeCommunities(c.replace());
            c.communities().forEach(v -> sb.addAddLargeCommunities(v.toString()));
          }
          case Action.PrependAsPath pp ->
              sb.setPrependCount(pp.times()).setPrependAsn((int) pp.asn());
        }
      }
      b.addStatements(sb);
    }
    return b.build();
  }

  static String community(int c) {
    return (c >>> 16) + ":" + (c & 0xffff);
  }

  /** A limit of 0 (or no message) is no limit. */
  static MaxPrefix maxPrefix(dev.sart.proto.v1.MaxPrefix m) {
    if (m.getLimit() == 0) {
      return null;
    }
    return new MaxPrefix(
        Integer.toUnsignedLong(m.getLimit()),
        m.getWarningOnly(),
        m.getRestartTime() == 0
            ? null
            : Duration.ofSeconds(Integer.toUnsignedLong(m.getRestartTime())));
  }

  static dev.sart.proto.v1.MaxPrefix maxPrefix(MaxPrefix m) {
    dev.sart.proto.v1.MaxPrefix.Builder b = dev.sart.proto.v1.MaxPrefix.newBuilder();
    if (m != null) {
      b.setLimit((int) m.limit())
          .setWarningOnly(m.warningOnly())
          .setRestartTime(m.restart() == null ? 0 : (int) m.restart().toSeconds());
    }
    return b.build();
  }

  /** A peer's policies from names the registry knows (an unknown name is an error). */
  static PeerPolicy peerPolicy(
      PolicyRegistry registry,
      String importPolicy,
      String exportPolicy,
      dev.sart.proto.v1.MaxPrefix maxPrefix,
      boolean softReconfigurationInbound,
      boolean advertisePeerAs) {
    return new PeerPolicy(
        registry.get(importPolicy),
        registry.get(exportPolicy),
        maxPrefix(maxPrefix),
        softReconfigurationInbound,
        advertisePeerAs);
  }

  /** The name a peer's configuration shows: empty for accept-all. */
  static String name(Policy p) {
    return p == Policy.ACCEPT_ALL ? "" : p.name();
  }
}
