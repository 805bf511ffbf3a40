package dev.sart.proto.v1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * sart's tools and agents talk to us over these messages, so the service names, method names and
 * field numbers must be exactly sart's. The byte strings below are written by hand from sart's
 * .proto field numbers, not produced by our own encoder.
 */
class SartV1CompatibilityTest {

  private static final HexFormat HEX = HexFormat.of();

  @Test
  void servicesAndMethodsKeepSartsFullNames() {
    assertEquals("sart.v1.BgpApi", BgpApiGrpc.SERVICE_NAME);
    assertEquals("sart.v1.BgpExporterApi", BgpExporterApiGrpc.SERVICE_NAME);
    assertEquals("sart.v1.FibApi", FibApiGrpc.SERVICE_NAME);
    assertEquals("sart.v1.FibManagerApi", FibManagerApiGrpc.SERVICE_NAME);
    assertEquals("sart.v1.CNIApi", CNIApiGrpc.SERVICE_NAME);

    // a compatible superset: sart's methods, then ours
    List<String> bgpApi = methodNames(BgpProto.getDescriptor().findServiceByName("BgpApi"));
    assertEquals(
        List.of(
            "Health",
            "GetBgpInfo",
            "GetNeighbor",
            "ListNeighbor",
            "GetPath",
            "GetNeighborPath",
            "GetPathByPrefix",
            "SetAS",
            "SetRouterId",
            "ClearBgpInfo",
            "AddPeer",
            "DeletePeer",
            "AddPath",
            "DeletePath",
            "ConfigureMultiPath"),
        bgpApi.subList(0, 15));
    assertEquals(
        List.of(
            "WatchPeerState",
            "WatchPath",
            "RefreshNeighbor",
            "SetPolicy",
            "DeletePolicy",
            "ListPolicy",
            "SetNeighborPolicy",
            "ExplainExport",
            "LocalPathsComplete",
            "UpdatePeer"),
        bgpApi.subList(15, bgpApi.size()));
    assertEquals(
        List.of("ExportPeer", "ExportPeerState"),
        methodNames(BgpProto.getDescriptor().findServiceByName("BgpExporterApi")));
    assertEquals(
        List.of(
            "GetRoute",
            "ListRoutes",
            "AddRoute",
            "DeleteRoute",
            "AddMultiPathRoute",
            "DeleteMultiPathRoute"),
        methodNames(FibProto.getDescriptor().findServiceByName("FibApi")));
    List<String> fibManagerApi =
        methodNames(FibManagerProto.getDescriptor().findServiceByName("FibManagerApi"));
    assertEquals(List.of("GetChannel", "ListChannel", "GetRoutes"), fibManagerApi.subList(0, 3));
    assertEquals(List.of("LookupRoute"), fibManagerApi.subList(3, fibManagerApi.size()));
    assertEquals(
        List.of("Add", "Del", "Check"),
        methodNames(CniProto.getDescriptor().findServiceByName("CNIApi")));
  }

  @Test
  void peerDecodesFromSartsFieldNumbers() throws Exception {
    // asn(1)=65000, address(2)="192.0.2.1", hold_time(5)=90, state(10)=ESTABLISHED(6),
    // passive_open(11), name(12)="tor"
    byte[] wire =
        HEX.parseHex(
            "08e8fb03"
                + "1209"
                + hex("192.0.2.1")
                + "285a"
                + "5006"
                + "5801"
                + "6203"
                + hex("tor"));
    Peer peer = Peer.parseFrom(wire);
    assertEquals(65000, peer.getAsn());
    assertEquals("192.0.2.1", peer.getAddress());
    assertEquals(90, peer.getHoldTime());
    assertEquals(Peer.State.ESTABLISHED, peer.getState());
    assertEquals(true, peer.getPassiveOpen());
    assertEquals("tor", peer.getName());
    assertArrayEquals(wire, peer.toByteArray());
  }

  @Test
  void pathEncodesWithSartsFieldNumbers() {
    Path path =
        Path.newBuilder()
            .setNlri("203.0.113.0/24")
            .addNextHops("192.0.2.1")
            .addSegments(AsSegment.newBuilder().setType(AsSegment.Type.AS_SEQUENCE).addElm(65001))
            .setLocalPref(100)
            .setBest(true)
            .build();
    String expected =
        "0a0e"
            + hex("203.0.113.0/24") // nlri = 1
            + "2209"
            + hex("192.0.2.1") // next_hops = 4
            + "2a07"
            + "0802"
            + "1203e9fb03" // segments = 5 { type = AS_SEQUENCE(2), elm = [65001] packed }
            + "3064" // local_pref = 6
            + "5001"; // best = 10
    assertEquals(expected, HEX.formatHex(path.toByteArray()));
  }

  @Test
  void routeAndCniMessagesKeepSartsNumbers() throws Exception {
    Route route =
        Route.newBuilder()
            .setTable(254)
            .setVersion(IpVersion.V4)
            .setDestination("198.51.100.0/24")
            .setProtocol(Protocol.Bgp)
            .setAd(AdministrativeDistance.ADEBGP)
            .addNextHops(
                NextHop.newBuilder().setGateway("192.0.2.1").setFlags(NextHop.NextHopFlags.ONLINK))
            .build();
    String expected =
        "08fe01"
            + "1002"
            + "1a0f"
            + hex("198.51.100.0/24")
            + "20ba01"
            + "3a0d"
            + "0a09"
            + hex("192.0.2.1")
            + "1803"
            + "4814";
    assertEquals(expected, HEX.formatHex(route.toByteArray()));

    Args args = Args.parseFrom(HEX.parseHex("0a03" + hex("abc") + "1a04" + hex("eth0")));
    assertEquals("abc", args.getContainerId());
    assertEquals("eth0", args.getIfname());
    assertEquals(11, ErrorCode.TryAgainLater.getNumber());
  }

  @Test
  void attributesTravelInAnyUnderSartsTypeUrls() throws Exception {
    Any origin = Any.pack(OriginAttribute.newBuilder().setValue(2).build());
    assertEquals("type.googleapis.com/sart.v1.OriginAttribute", origin.getTypeUrl());
    assertEquals(
        "type.googleapis.com/sart.v1.FourOctedASNCapability",
        Any.pack(FourOctedASNCapability.getDefaultInstance()).getTypeUrl());
    assertEquals(2, origin.unpack(OriginAttribute.class).getValue());
  }

  private static List<String> methodNames(ServiceDescriptor service) {
    return service.getMethods().stream().map(MethodDescriptor::getName).toList();
  }

  private static String hex(String ascii) {
    return HEX.formatHex(ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }
}
