package dev.sart.bgp.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.rib.AdjRibOut;
import dev.sart.bgp.rib.Attrs;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Ipv4Prefixes;
import dev.sart.bgp.wire.Ipv6Prefixes;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MpUnreachNlri;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.bgp.wire.SessionOptions;
import dev.sart.bgp.wire.Update;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Withdrawals leave in UPDATEs as full as the session's maximum message size allows (RFC 4271 §4.3;
 * RFC 8654 with the extended message capability), like announcements: a withdrawal of 100k routes
 * is ~120 messages of 4 KiB, not one per prefix or per drained chunk.
 */
class UpdatePackerTest {
  private static final List<Family> V4 = List.of(Family.IPV4_UNICAST);

  private static List<Prefix> v4Hosts(int n) {
    List<Prefix> ps = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ps.add(Prefix.v4(0xC6120000 | i, 32)); // 198.18.0.0/15: encoded here, never sent
    }
    return ps;
  }

  /**
   * Encodes every UPDATE, checks each against the limit, decodes it back and collects the withdrawn
   * prefixes.
   */
  private static List<Prefix> roundTrip(List<Update> updates, BgpCodec codec, int max, int room)
      throws Exception {
    List<Prefix> withdrawn = new ArrayList<>();
    for (int i = 0; i < updates.size(); i++) {
      byte[] b = codec.encode(updates.get(i));
      assertTrue(
          b.length <= max, "UPDATE " + i + " is " + b.length + " bytes, the limit is " + max);
      if (i < updates.size() - 1) {
        // all but the last: no room for another prefix of this size
        assertTrue(
            b.length > max - room,
            "UPDATE " + i + " is only " + b.length + " of " + max + " bytes");
      }
      Update u = assertInstanceOf(Update.class, codec.decode(b, 0, b.length));
      Ipv4Prefixes w = u.withdrawn();
      for (int k = 0; k < w.size(); k++) {
        withdrawn.add(Prefix.v4(w.address(k), w.length(k)));
      }
      MpUnreachNlri mp = u.mpUnreach();
      if (mp != null) {
        Ipv6Prefixes w6 = (Ipv6Prefixes) mp.withdrawn();
        for (int k = 0; k < w6.size(); k++) {
          withdrawn.add(Prefix.v6(w6.high(k), w6.low(k), w6.length(k)));
        }
      }
    }
    return withdrawn;
  }

  @Test
  void ipv4WithdrawalsFillFourKilobyteUpdates() throws Exception {
    BgpCodec codec = new BgpCodec(SessionOptions.FOUR_OCTET_AS);
    List<Prefix> ps = v4Hosts(10_000);
    List<Update> out = UpdatePacker.pack(new AdjRibOut.Batch(Map.of(), ps, false), codec, V4);
    // 4096 - 23 bytes of header and length fields = 4073 for prefixes of 5 bytes: 814 per UPDATE
    assertEquals((10_000 + 813) / 814, out.size());
    assertEquals(ps, roundTrip(out, codec, 4096, 5));
  }

  @Test
  void withTheExtendedMessageCapabilityWithdrawalsFillSixtyFourKilobytes() throws Exception {
    BgpCodec codec = new BgpCodec(SessionOptions.FOUR_OCTET_AS.withExtendedMessage(true));
    List<Prefix> ps = v4Hosts(30_000);
    List<Update> out = UpdatePacker.pack(new AdjRibOut.Batch(Map.of(), ps, false), codec, V4);
    assertEquals((30_000 + 13_101) / 13_102, out.size()); // (65535 - 23) / 5 per UPDATE
    assertEquals(ps, roundTrip(out, codec, 65_535, 5));
  }

  @Test
  void ipv6WithdrawalsFillMpUnreachUpdates() throws Exception {
    BgpCodec codec = new BgpCodec(SessionOptions.FOUR_OCTET_AS);
    List<Prefix> ps = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      ps.add(Prefix.v6(0x20010db8_00000000L, i, 128)); // 2001:db8::/32
    }
    List<Update> out =
        UpdatePacker.pack(
            new AdjRibOut.Batch(Map.of(), ps, false), codec, List.of(Family.IPV6_UNICAST));
    assertTrue(
        out.size() <= 5, out.size() + " UPDATEs for 1,000 /128 (17 bytes each, ~239 fit in 4096)");
    assertEquals(ps, roundTrip(out, codec, 4096, 17));
  }

  @Test
  void withdrawalsAndAnnouncementsOfOneBatchBothLeave() throws Exception {
    BgpCodec codec = new BgpCodec(SessionOptions.FOUR_OCTET_AS);
    Attrs a =
        Attrs.of(
            PathAttributes.of(Origin.IGP, AsPath.sequence(65001)),
            new MpNextHop.V4(Ip.parseV4("192.0.2.1")));
    List<Prefix> all = v4Hosts(2_000);
    Map<Attrs, List<Prefix>> announce = new LinkedHashMap<>();
    announce.put(a, all.subList(0, 1_000));
    List<Update> out =
        UpdatePacker.pack(
            new AdjRibOut.Batch(announce, all.subList(1_000, 2_000), false), codec, V4);
    int withdrawn = 0;
    int announced = 0;
    for (Update u : out) {
      byte[] b = codec.encode(u);
      Update d = assertInstanceOf(Update.class, codec.decode(b, 0, b.length));
      withdrawn += d.withdrawn().size();
      announced += d.nlri().size();
    }
    assertEquals(1_000, withdrawn);
    assertEquals(1_000, announced);
    assertEquals(4, out.size()); // 2 of withdrawals (814 + 186) and 2 of announcements
  }
}
