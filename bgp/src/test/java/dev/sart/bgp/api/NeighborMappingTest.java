package dev.sart.bgp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.fsm.OpenCheck;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Octets;
import dev.sart.bgp.wire.Open;
import dev.sart.proto.v1.NeighborCapability;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capability rows of GetNeighbor from a pair of OPENs: one per code (per family for
 * Multiprotocol), in code order, which side sent each and what it held. The values of the
 * capabilities FRR does not send us (our ADD-PATH send, extended next hop) are checked here; the
 * rest against FRR in sart-cli's {@code NeighborDetailTest}.
 */
class NeighborMappingTest {
  @Test
  void eachCapabilityOfEitherOpenIsOneRowSayingWhoSentItAndWhatItHeld() throws Exception {
    Open ours =
        Open.of(
            4_200_000_001L,
            90,
            0x0a000001,
            List.of(
                new Capability.Multiprotocol(Family.IPV4_UNICAST),
                new Capability.Multiprotocol(Family.IPV6_UNICAST),
                Capability.RouteRefresh.INSTANCE,
                new Capability.ExtendedNextHop(
                    List.of(new Capability.ExtendedNextHop.Entry(Iana.Afi.IPV4, 1, Iana.Afi.IPV6))),
                new Capability.GracefulRestart(
                    Capability.GracefulRestart.RESTART_STATE
                        | Capability.GracefulRestart.NOTIFICATION,
                    120,
                    List.of(
                        new Capability.GracefulRestart.Entry(
                            Family.IPV4_UNICAST, Capability.GracefulRestart.FORWARDING_STATE),
                        new Capability.GracefulRestart.Entry(Family.IPV6_UNICAST, 0))),
                new Capability.FourOctetAs(4_200_000_001L),
                new Capability.AddPath(
                    List.of(
                        new Capability.AddPath.Entry(
                            Family.IPV4_UNICAST, Capability.AddPath.BOTH)))));
    Open theirs =
        Open.of(
            65002,
            180,
            0x0a000002,
            List.of(
                new Capability.Multiprotocol(Family.IPV4_UNICAST),
                new Capability.FourOctetAs(65002),
                new Capability.AddPath(
                    List.of(
                        new Capability.AddPath.Entry(
                            Family.IPV4_UNICAST, Capability.AddPath.RECEIVE))),
                new Capability.Role(Iana.Role.PEER),
                new Capability.Unknown(131, Octets.of((byte) 1, (byte) 2)),
                new Capability.Unknown(131, Octets.of((byte) 3))));
    Negotiation n = OpenCheck.check(ours, theirs, 65002, 4_200_000_001L, null);

    List<String> rows =
        NeighborMapping.capabilities(n).stream().map(NeighborMappingTest::row).toList();
    assertEquals(
        List.of(
            "1 multiprotocol ipv4/unicast | yes | yes",
            "1 multiprotocol ipv6/unicast | yes | -",
            "2 route refresh | yes | -",
            "5 extended next hop | ipv4/unicast via ipv6 | -",
            "9 BGP role | - | peer",
            "64 graceful restart | restart time 120 s, R N, ipv4/unicast F, ipv6/unicast | -",
            "65 4-octet AS | AS 4200000001 | AS 65002",
            "69 ADD-PATH | ipv4/unicast send/receive | ipv4/unicast receive",
            "131 capability 131 | - | 2 octet(s); 1 octet(s)"),
        rows);
  }

  private static String row(NeighborCapability c) {
    return c.getCode()
        + " "
        + c.getName()
        + " | "
        + cell(c.getAdvertised(), c.getAdvertisedValue())
        + " | "
        + cell(c.getReceived(), c.getReceivedValue());
  }

  private static String cell(boolean sent, String value) {
    return !sent ? "-" : value.isEmpty() ? "yes" : value;
  }
}
