package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Why a path is or is not in a peer's Adj-RIB-Out: each rule, and agreement with the RIB. */
class ExportVerdictTest {
  static final Prefix P = Prefix.parse("203.0.113.10/32");
  Rib rib;
  int ids;

  @BeforeEach
  void setUp() {
    rib = new Rib(3);
    rib.setLocalAs(65001);
  }

  @AfterEach
  void tearDown() {
    rib.close();
  }

  RibPeer peer(String address, long asn, Set<Family> families, MpNextHop v4) throws Exception {
    return new RibPeer(
        ++ids,
        InetAddress.getByName(address),
        asn,
        ids,
        asn == 65001,
        v4,
        null,
        families,
        new AdjRibOut(() -> {}));
  }

  RibPeer peer(String address, long asn) throws Exception {
    return peer(
        address, asn, Set.of(Family.IPV4_UNICAST), new MpNextHop.V4(Ip.parseV4("192.0.2.1")));
  }

  ExportVerdict verdict(RibPeer p, Prefix prefix) {
    return rib.query(v -> v.exportVerdict(p, prefix)).join();
  }

  boolean advertised(RibPeer p, Prefix prefix) {
    return rib.query(v -> v.advertisedTo(p, prefix.family())).join().stream()
        .anyMatch(e -> e.getKey().equals(prefix));
  }

  static Attrs local(PathAttributes a) {
    return Attrs.of(a, new MpNextHop.V4(0));
  }

  @Test
  void aLocalRouteIsAdvertisedWithTheAttributesSent() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a);
    rib.originate(List.of(P), local(PathAttributes.of(Origin.IGP)));
    ExportVerdict v = verdict(a, P);
    assertEquals(ExportVerdict.Kind.ADVERTISED, v.kind());
    assertNotNull(v.sent());
    assertEquals(true, advertised(a, P));
  }

  @Test
  void aPrefixNobodyOriginatedHasNoRoute() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a);
    assertEquals(ExportVerdict.Kind.NO_ROUTE, verdict(a, P).kind());
  }

  @Test
  void anExportPolicyRejectionNamesThePolicyAndItsStatement() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    Policy out =
        Policy.of(
            "to-tor",
            true,
            Statement.accept(Match.prefixes(PrefixList.of("other", "198.51.100.0/24"))),
            Statement.reject(Match.prefixes(PrefixList.of("lb", "203.0.113.0/24 le 32"))));
    rib.peerUp(a, PeerPolicy.NONE.withExport(out), null);
    rib.originate(List.of(P), local(PathAttributes.of(Origin.IGP)));
    ExportVerdict v = verdict(a, P);
    assertEquals(ExportVerdict.Kind.POLICY_REJECTED, v.kind());
    assertEquals("to-tor", v.policy());
    assertEquals(2, v.statement());
    assertEquals(false, advertised(a, P), "the Adj-RIB-Out agrees");
  }

  @Test
  void aDefaultRejectIsStatementZero() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a, PeerPolicy.NONE.withExport(Policy.of("nothing", false)), null);
    rib.originate(List.of(P), local(PathAttributes.of(Origin.IGP)));
    ExportVerdict v = verdict(a, P);
    assertEquals(ExportVerdict.Kind.POLICY_REJECTED, v.kind());
    assertEquals(0, v.statement());
  }

  @Test
  void aPathHoldingThePeersAsIsAnAsPathLoop() throws Exception {
    RibPeer from = peer("192.0.2.6", 65003);
    RibPeer to = peer("192.0.2.2", 65002);
    rib.peerUp(from);
    rib.peerUp(to);
    rib.update(
        from,
        List.of(),
        null,
        List.of(P),
        null,
        Attrs.of(
            PathAttributes.of(Origin.IGP, dev.sart.bgp.wire.AsPath.sequence(65003, 65002)),
            new MpNextHop.V4(Ip.parseV4("192.0.2.6"))));
    assertEquals(ExportVerdict.Kind.AS_PATH_LOOP, verdict(to, P).kind());
    assertEquals(ExportVerdict.Kind.FROM_THIS_PEER, verdict(from, P).kind());
  }

  @Test
  void noExportKeepsItFromAnExternalPeer() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a);
    rib.originate(
        List.of(P),
        local(
            PathAttributes.of(Origin.IGP)
                .with(Communities.of(dev.sart.bgp.wire.Iana.WellKnownCommunity.NO_EXPORT))));
    assertEquals(ExportVerdict.Kind.NO_ADVERTISE, verdict(a, P).kind());
  }

  @Test
  void aPeerWithoutTheFamilyOrANextHopGetsNothing() throws Exception {
    RibPeer v6only = peer("192.0.2.2", 65002, Set.of(Family.IPV6_UNICAST), null);
    RibPeer noNextHop = peer("192.0.2.3", 65002, Set.of(Family.IPV4_UNICAST), null);
    rib.peerUp(v6only);
    rib.peerUp(noNextHop);
    rib.originate(List.of(P), local(PathAttributes.of(Origin.IGP)));
    assertEquals(ExportVerdict.Kind.FAMILY_NOT_NEGOTIATED, verdict(v6only, P).kind());
    assertEquals(ExportVerdict.Kind.NO_NEXT_HOP, verdict(noNextHop, P).kind());
  }
}
