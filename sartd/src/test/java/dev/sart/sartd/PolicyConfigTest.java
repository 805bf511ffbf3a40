package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.policy.Action;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Communities;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy keys of the {@code sartd bgp} YAML, as an operator writes them. */
class PolicyConfigTest {
  @TempDir Path dir;
  private final BgpServer server = new BgpServer(0);

  @AfterEach
  void close() {
    server.close();
  }

  private BgpConfigFile load(String yaml) throws Exception {
    Path f = dir.resolve("sartd.yaml");
    Files.writeString(f, yaml);
    return ConfigFile.read(f, BgpConfigFile.class).value();
  }

  static final String FILE =
      """
      asn: 65001
      router_id: 192.0.2.1
      prefix_lists:
        customers: ["permit 203.0.113.0/24 le 28", "deny any"]
      policies:
        - name: from-tor
          default: reject
          statements:
            - match: {prefix_list: customers, communities: ["65000:1"]}
              set: {local_pref: 200, med: 10, add_communities: ["65001:7"], prepend: 2}
            - match: {prefixes: ["2001:db8::/32 le 48"]}
              action: accept
              set: {large_communities: ["65001:1:1"]}
        - name: to-tor
          statements:
            - match: {large_communities: ["65000:0:666"]}
              action: reject
      neighbors:
        - asn: 65000
          address: 192.0.2.2
          import_policy: from-tor
          export_policy: to-tor
          max_prefix: 1000
          max_prefix_restart: 60
          soft_reconfiguration_inbound: true
          advertise_peer_as: true
      """;

  @Test
  void policiesAndNeighbourKeysBecomeTheSpeakersPolicies() throws Exception {
    BgpConfigFile cfg = load(FILE);
    List<Policy> policies = PolicyConfig.policies(cfg);
    Policy fromTor =
        Policy.of(
            "from-tor",
            false,
            Statement.accept(
                new Match(
                    PrefixList.of("customers", "permit 203.0.113.0/24 le 28", "deny any"),
                    List.of(Communities.community(65000, 1)),
                    List.of()),
                new Action.SetLocalPref(200),
                new Action.SetMed(10),
                new Action.SetCommunities(List.of(Communities.community(65001, 7)), false),
                new Action.PrependAsPath(0, 2)),
            Statement.accept(
                Match.prefixes(PrefixList.of("from-tor-2", "2001:db8::/32 le 48")),
                new Action.SetLargeCommunities(
                    List.of(Match.LargeCommunity.parse("65001:1:1")), true)));
    Policy toTor =
        Policy.of(
            "to-tor",
            true,
            Statement.reject(Match.largeCommunity(Match.LargeCommunity.parse("65000:0:666"))));
    assertEquals(List.of(fromTor, toTor), policies);

    policies.forEach(server.policies()::define);
    PeerPolicy pp = PolicyConfig.peerPolicy(cfg.neighbors().getFirst(), server.policies()::get);
    assertEquals(fromTor, pp.importPolicy());
    assertEquals(toTor, pp.exportPolicy());
    assertEquals(1000, pp.maxPrefix().limit());
    assertEquals(Duration.ofSeconds(60), pp.maxPrefix().restart());
    assertTrue(pp.softReconfigurationInbound());
    assertTrue(pp.advertisePeerAs());
  }

  @Test
  void aNeighbourWithoutPolicyKeysAcceptsEverythingWithoutLimit() throws Exception {
    BgpConfigFile cfg = load("neighbors: [{asn: 65000, address: 192.0.2.2}]\n");
    PeerPolicy pp = PolicyConfig.peerPolicy(cfg.neighbors().getFirst(), server.policies()::get);
    assertEquals(PeerPolicy.NONE, pp);
    assertNull(pp.maxPrefix());
    assertFalse(pp.advertisePeerAs());
  }

  @Test
  void theReadmeExampleLoads() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int start = readme.indexOf("```yaml\nprefix_lists");
    String yaml = readme.substring(start + 8, readme.indexOf("```", start + 8));
    BgpConfigFile cfg = load(yaml);
    PolicyConfig.policies(cfg).forEach(server.policies()::define);
    PeerPolicy pp = PolicyConfig.peerPolicy(cfg.neighbors().getFirst(), server.policies()::get);
    assertEquals("from-tor", pp.importPolicy().name());
    assertEquals("to-tor", pp.exportPolicy().name());
  }

  @Test
  void mistakesAreNamed() throws Exception {
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    PolicyConfig.policies(
                        load(
                            """
        policies: [{name: p, statements: [{match: {prefix_list: nope}}]}]
        """)))
            .getMessage()
            .contains("policy 'p', statement 1: no prefix list 'nope'"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    PolicyConfig.policies(
                        load(
                            """
        prefix_lists: {l: ["10.0.0.0/8 ge 8"]}
        """)))
            .getMessage()
            .startsWith("prefix_lists.l:"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    PolicyConfig.policies(
                        load(
                            """
        policies: [{name: p, statements: [{action: drop}]}]
        """)))
            .getMessage()
            .contains("'accept' or 'reject'"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    PolicyConfig.peerPolicy(
                        load("neighbors: [{asn: 65000, address: 192.0.2.2, import_policy: x}]\n")
                            .neighbors()
                            .getFirst(),
                        server.policies()::get))
            .getMessage()
            .contains("import_policy: no policy 'x'"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    load(
                        "neighbors: [{asn: 65000, address: 192.0.2.2, advertise_peer_as: often}]\n"))
            .getMessage()
            .contains("often"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> load("policies: [{name: p, colour: red}]\n"))
            .getMessage()
            .contains("unknown key 'colour'"));
  }
}
