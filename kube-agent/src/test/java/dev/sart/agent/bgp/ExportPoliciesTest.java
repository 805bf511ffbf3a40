package dev.sart.agent.bgp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.Protocol;
import dev.sart.proto.v1.Policy;
import dev.sart.proto.v1.PolicyStatement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The per-peer export policies as values (the speaker applying them is BgpAgentPerPeerTest's
 * business).
 */
class ExportPoliciesTest {

  private static BGPAdvertisement advert(String cidr, Map<String, AdvertiseStatus> peers) {
    BGPAdvertisement a =
        new BGPAdvertisement(
            "default",
            "a-" + cidr.replace('/', '-'),
            new BGPAdvertisementSpec(cidr, AddressType.SERVICE, Protocol.IPV4, null));
    a.setStatus(new BGPAdvertisementStatus(peers));
    return a;
  }

  @Test
  void aPeerIsTargetedByItsEntriesThatAreNotWithdraw() {
    BGPAdvertisement deleting = advert("203.0.113.4/32", Map.of("a", AdvertiseStatus.Advertised));
    deleting.getMetadata().setDeletionTimestamp("2026-11-21T00:00:00Z");
    Map<String, Set<String>> t =
        ExportPolicies.targets(
            List.of(
                advert(
                    "203.0.113.1/32",
                    Map.of(
                        "a",
                        AdvertiseStatus.NotAdvertised,
                        "other-node",
                        AdvertiseStatus.NotAdvertised)),
                advert(
                    "203.0.113.2/32",
                    Map.of("a", AdvertiseStatus.Advertised, "b", AdvertiseStatus.Withdraw)),
                advert("203.0.113.3/32", Map.of("other-node", AdvertiseStatus.Advertised)),
                deleting),
            Set.of("a", "b", "c"));
    assertEquals(
        Map.of("a", Set.of("203.0.113.1/32", "203.0.113.2/32"), "b", Set.of(), "c", Set.of()),
        t,
        "Withdraw, other nodes' peers and deleted adverts target nothing; every peer of the node has a policy");
  }

  @Test
  void thePolicyAcceptsTheTargetsAndRejectsTheAgentsOtherPrefixesExactly() {
    Policy p =
        ExportPolicies.policy(
            "a",
            Set.of("203.0.113.2/32", "2001:db8::/64"),
            Set.of("203.0.113.1/32", "203.0.113.2/32", "2001:db8::/64", "198.51.100.0/29"));
    assertEquals("sart-agent-export-a", p.getName());
    assertEquals(false, p.getDefaultReject(), "transit routes pass");
    assertEquals(
        List.of("permit 2001:db8::/64", "permit 203.0.113.2/32"),
        p.getStatements(0).getPrefixListList());
    assertEquals(false, p.getStatements(0).getReject());
    assertEquals(
        List.of("permit 198.51.100.0/29", "permit 203.0.113.1/32"),
        p.getStatements(1).getPrefixListList());
    assertEquals(true, p.getStatements(1).getReject());
  }

  @Test
  void anEmptyListIsNoStatementBecauseItWouldMatchEveryRoute() {
    assertEquals(List.of(), ExportPolicies.policy("a", Set.of(), Set.of()).getStatementsList());
    List<PolicyStatement> onlyReject =
        ExportPolicies.policy("a", Set.of(), Set.of("203.0.113.1/32")).getStatementsList();
    assertEquals(1, onlyReject.size());
    assertEquals(true, onlyReject.getFirst().getReject());
    List<PolicyStatement> onlyAccept =
        ExportPolicies.policy("a", Set.of("203.0.113.1/32"), Set.of("203.0.113.1/32"))
            .getStatementsList();
    assertEquals(1, onlyAccept.size());
    assertEquals(false, onlyAccept.getFirst().getReject());
  }
}
