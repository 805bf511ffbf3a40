package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Aggregator;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.Bird;
import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.OpenBgpd;
import dev.sart.testbed.Prerequisites;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RFC 6793 against real daemons acting as 2-octet AS speakers (no 4-octet AS capability in their
 * OPEN, {@link Neighbor#withoutAs4()}): BIRD ({@code enable as4 off}), OpenBGPD ({@code announce
 * as-4byte no}) and FRR ({@code dont-capability-negotiate}: FRR 8.4 has no other way, so it sends
 * no capabilities at all). GoBGP 3.10 always sends the capability and is not in here.
 *
 * <pre>
 *   new: FRR AS 4200000002 --- sart AS 4200000001 ------- old AS 65002 ------- up: FRR AS 4200000099
 *   192.0.2.6/30        192.0.2.5/30    192.0.2.1/30     192.0.2.2/30   198.51.100.1/30   198.51.100.2/30
 *                                                   (2-octet on both of its sessions)
 * </pre>
 *
 * <p>All three read the AS in our 4-octet AS capability even though they do not send one, so each
 * is configured with our real AS, not AS_TRANS: OpenBGPD rejects {@code remote-as 23456}
 * ("reserved"), BIRD and FRR answer a configured 23456 with Bad Peer AS (2/2), and BIRD with {@code
 * enable as4 off} cannot name a 4-octet AS at all (the driver writes {@code neighbor ...
 * external}).
 *
 * <p>Oracles: tcpdump in the old speaker's namespace for what we put on the wire (its BGP decoder),
 * the old speaker's CLI for what it negotiated and shows, FRR upstream (a 4-octet speaker) for what
 * crossed the old speaker in AS4_PATH, our RIB for what we merged (§4.2.3), FRR on our other side
 * for what we send on to a 4-octet speaker.
 */
class SpeakerAs2InteropTest {
  private static final long OUR_AS = 4_200_000_001L;
  private static final long OLD_AS = 65002;
  private static final long UP_AS = 4_200_000_099L;
  private static final long NEW_AS = 4_200_000_002L;
  private static final long AS_TRANS = 23456;
  private static final String OURS = "203.0.113.0/25";
  private static final String OLDS = "198.51.100.128/25";
  private static final String UPS = "203.0.113.128/25";
  private static final String NEWS = "192.0.2.128/25";

  /**
   * What FRR upstream aggregates into {@link #UPS} (with BIRD, OpenBGPD): AGGREGATOR [4200000099
   * 198.51.100.2].
   */
  private static final String UPS_PART = "203.0.113.192/26";

  /** A line where tcpdump starts a packet ("13:36:44.201911 eth1 In IP ..."). */
  private static final Pattern PACKET_START =
      Pattern.compile("(?m)^(?=\\d\\d:\\d\\d:\\d\\d\\.\\d+ )");

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * The three namespaces, their sessions up, and tcpdump on the old speaker's link to us. With
   * {@code aggregate}, FRR upstream originates {@link #UPS} as an aggregate, else as a network.
   */
  private record Bed(Router old, Router up, Router neu, ManagedProcess wire) {}

  private Bed start(RouterKind kind, boolean aggregate) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node oldNode = t.node("old");
    Node upNode = t.node("up");
    Node newNode = t.node("new");
    t.link(sart, oldNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(oldNode, upNode).addresses("198.51.100.1/30", "198.51.100.2/30");
    t.link(newNode, sart).addresses("192.0.2.6/30", "192.0.2.5/30");

    Prerequisites.requireCommands("tcpdump");
    ManagedProcess wire =
        oldNode.spawn(
            "tcpdump",
            List.of("tcpdump", "-l", "-n", "-v", "-i", "any", "host 192.0.2.1 and tcp port 179"));
    await().atMost(Duration.ofSeconds(10)).until(() -> wire.tail(5).contains("listening on"));

    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(OUR_AS);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    server.addPaths(List.of(Prefix.parse(OURS)), PathAttributes.of(Origin.IGP));

    Router old =
        kind.create(
                oldNode,
                RouterConfig.of(OLD_AS, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", OUR_AS).withoutAs4())
                    .neighbor(Neighbor.of("198.51.100.2", UP_AS).withoutAs4())
                    .originate(OLDS))
            .start();
    if (old instanceof Frr frr) {
      // FRR's own record of our OPEN: "rcv OPEN, version 4, remote-as (in open) N"; on before we
      // take its connections (until our peer exists we refuse them)
      frr.vtysh("configure terminal", "log stdout debugging", "exit", "debug bgp neighbor-events");
    }
    Router up =
        RouterKind.FRR
            .create(
                upNode,
                RouterConfig.of(UP_AS, "198.51.100.2")
                    .neighbor(Neighbor.of("198.51.100.1", OLD_AS))
                    .originate(aggregate ? UPS_PART : UPS))
            .start();
    if (aggregate) {
      ((Frr) up)
          .vtysh(
              "configure terminal",
              "router bgp " + UP_AS,
              "address-family ipv4 unicast",
              "aggregate-address " + UPS + " summary-only");
    }
    Router neu =
        RouterKind.FRR
            .create(
                newNode,
                RouterConfig.of(NEW_AS, "192.0.2.6")
                    .neighbor(Neighbor.of("192.0.2.5", OUR_AS))
                    .originate(NEWS))
            .start();
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), OLD_AS)));
    Peer q =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.6"), NEW_AS)));

    old.awaitEstablished("192.0.2.1");
    old.awaitEstablished("198.51.100.2");
    up.awaitEstablished("198.51.100.1");
    neu.awaitEstablished("192.0.2.5");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                p.status().state() == State.ESTABLISHED && q.status().state() == State.ESTABLISHED);
    return new Bed(old, up, neu, wire);
  }

  /**
   * BIRD and OpenBGPD behave as RFC 6793 expects of the old side: our OPEN says AS_TRANS with our
   * AS in the capability, they send none; our route reaches them as AS_PATH [23456] plus AS4_PATH
   * [4200000001] (they merge it and show 4200000001) and goes on to FRR with our AS intact; the
   * aggregate FRR upstream originates reaches us as AS_PATH [65002 23456] plus AS4_PATH, AGGREGATOR
   * [23456 ...] plus AS4_AGGREGATOR, which we merge back (§4.2.3). FRR's route from our other side
   * crosses with two 4-octet ASes, and FRR there gets the merged paths whole.
   */
  @ParameterizedTest(
      name = "{0} as a 2-octet speaker knows us as AS_TRANS, and 4-octet paths cross it both ways")
  @EnumSource(
      value = RouterKind.class,
      names = {"BIRD", "OPENBGPD"})
  void twoOctetSpeaker(RouterKind kind) throws Exception {
    Bed bed = start(kind, true);

    // our OPEN on the wire: My AS is AS_TRANS, our AS is in the capability (RFC 6793 §4.1)
    String ourOpen = awaitPacket(bed.wire(), "192.0.2.1", "Open Message");
    assertTrue(ourOpen.contains("my AS " + AS_TRANS + ","), ourOpen);
    assertTrue(ourOpen.contains("4 Byte AS " + OUR_AS), ourOpen);
    // the daemon sent no 4-octet AS capability, saw ours, and the session is a 2-octet one
    switch (bed.old()) {
      case Bird b -> {
        String proto = b.birdc("show protocols all n0");
        String local =
            proto.substring(
                proto.indexOf("Local capabilities"), proto.indexOf("Neighbor capabilities"));
        String neighbor =
            proto.substring(proto.indexOf("Neighbor capabilities"), proto.indexOf("Session:"));
        assertFalse(local.contains("4-octet AS numbers"), proto);
        assertTrue(neighbor.contains("4-octet AS numbers"), proto);
        assertTrue(
            Pattern.compile("Session:\\s+external\\s*\\n").matcher(proto).find(),
            proto); // not "external AS4"
        assertTrue(
            Pattern.compile("Neighbor AS:\\s+" + OUR_AS + "\\n").matcher(proto).find(), proto);
      }
      case OpenBgpd o -> {
        JsonNode n = json(o.bgpctl("-j", "show", "neighbor", "192.0.2.1")).path("neighbors").get(0);
        JsonNode session = n.path("session");
        assertEquals(OUR_AS, n.path("remote_as").asLong(), n::toString);
        assertFalse(
            session.path("local").path("capabilities").path("as4byte").asBoolean(true),
            n::toString);
        assertTrue(
            session.path("remote").path("capabilities").path("as4byte").asBoolean(false),
            n::toString);
        assertFalse(session.path("capabilities").path("as4byte").asBoolean(true), n::toString);
      }
      default -> throw new IllegalArgumentException(bed.old().toString());
    }

    // our route: AS_TRANS in AS_PATH, our AS in AS4_PATH (§4.2.2); the daemon merges and shows ours
    String ourUpdate = awaitPacket(bed.wire(), "192.0.2.1", OURS);
    assertTrue(
        ourUpdate.contains("AS Path (2), length: 4, Flags [T]: " + AS_TRANS + " \n"), ourUpdate);
    assertTrue(
        ourUpdate.contains("AS4 Path (17), length: 6, Flags [OT]: " + OUR_AS + " \n"), ourUpdate);
    Route atOld = bed.old().awaitRoute(OURS);
    assertEquals(List.of(OUR_AS), atOld.asPath(), atOld::toString);
    // FRR upstream, a 4-octet speaker behind the 2-octet one: it gets the whole path (§4.2.3 on its
    // side)
    Route atUp = bed.up().awaitRoute(OURS);
    assertEquals(List.of(OLD_AS, OUR_AS), atUp.asPath(), atUp::toString);

    // the daemon's own route, and FRR's from behind it: AS_PATH [65002 23456] + AS4_PATH on the
    // wire
    String upsUpdate = awaitPacket(bed.wire(), "192.0.2.2", UPS);
    assertTrue(upsUpdate.contains(": " + OLD_AS + " " + AS_TRANS + " \n"), upsUpdate);
    assertTrue(upsUpdate.contains("AS4 Path (17)"), upsUpdate);
    await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib(OLDS) && inOurRib(UPS));
    assertEquals(AsPath.sequence(OLD_AS), asPath(OLDS));
    assertEquals(AsPath.sequence(OLD_AS, UP_AS), asPath(UPS), upsUpdate);
    // FRR's aggregate: AGGREGATOR [23456 ...] + AS4_AGGREGATOR [4200000099 ...] on the wire, merged
    assertTrue(upsUpdate.contains("Aggregator4 (18)"), upsUpdate);
    assertEquals(new Aggregator(UP_AS, Ip.parseV4("198.51.100.2")), aggregator(UPS), upsUpdate);

    // a path of two 4-octet ASes from FRR on our other side: AS_TRANS twice, both in AS4_PATH; the
    // old speaker shows them and FRR upstream gets them all back
    String newsUpdate = awaitPacket(bed.wire(), "192.0.2.1", NEWS);
    assertTrue(newsUpdate.contains(": " + AS_TRANS + " " + AS_TRANS + " \n"), newsUpdate);
    assertTrue(
        newsUpdate.contains(
            "AS4 Path (17), length: 10, Flags [OT]: " + OUR_AS + " " + NEW_AS + " \n"),
        newsUpdate);
    assertEquals(List.of(OUR_AS, NEW_AS), bed.old().awaitRoute(NEWS).asPath());
    assertEquals(List.of(OLD_AS, OUR_AS, NEW_AS), bed.up().awaitRoute(NEWS).asPath());
    // and what we merged goes to a 4-octet speaker whole, in 4-octet AS_PATH
    assertEquals(List.of(OUR_AS, OLD_AS, UP_AS), bed.neu().awaitRoute(UPS).asPath());
    assertEquals(List.of(OUR_AS, OLD_AS), bed.neu().awaitRoute(OLDS).asPath());
  }

  /**
   * FRR without capabilities is a 2-octet speaker on the wire (no 4-octet AS capability, AS_PATH in
   * 2-octet numbers) but not a faithful old one: it still reads the AS in our capability (the
   * session comes up only with our real AS configured) and then drops AS4_PATH as if from a 4-octet
   * peer, where an old speaker would pass the unknown optional transitive attribute on. So the
   * 4-octet ASes are lost in both directions: FRR shows our route with [23456], FRR upstream gets
   * [65002 23456], and FRR upstream's route reaches us as [65002 23456] without AS4_PATH (nothing
   * to merge). Our side is right throughout: AS_TRANS in the OPEN, AS4_PATH sent, IPv4 unicast
   * without any capability from FRR. (No aggregate here: this FRR reads the 2-octet AGGREGATOR of
   * FRR upstream with the 4-octet length its capability announced and resets that session, 3/5
   * Attribute Length Error.)
   */
  @Test
  void frrWithoutCapabilitiesDropsAs4Path() throws Exception {
    Bed bed = start(RouterKind.FRR, false);
    Frr frr = (Frr) bed.old();

    String ourOpen = awaitPacket(bed.wire(), "192.0.2.1", "Open Message");
    assertTrue(ourOpen.contains("my AS " + AS_TRANS + ","), ourOpen);
    assertTrue(ourOpen.contains("4 Byte AS " + OUR_AS), ourOpen);
    String frrOpen = awaitPacket(bed.wire(), "192.0.2.2", "Open Message");
    assertTrue(
        frrOpen.contains("Optional parameters, length: 0\n"), frrOpen); // no capabilities at all
    String log = Files.readString(frr.processes().getLast().log());
    assertTrue(
        log.contains("192.0.2.1 rcv OPEN, version 4, remote-as (in open) " + AS_TRANS + ","), log);
    JsonNode n = json(frr.vtysh("show bgp neighbors 192.0.2.1 json")).path("192.0.2.1");
    assertEquals(OUR_AS, n.path("remoteAs").asLong(), n::toString);
    assertEquals("received", n.path("neighborCapabilities").path("4byteAs").asText(), n::toString);

    String ourUpdate = awaitPacket(bed.wire(), "192.0.2.1", OURS);
    assertTrue(
        ourUpdate.contains("AS4 Path (17), length: 6, Flags [OT]: " + OUR_AS + " \n"), ourUpdate);
    assertEquals(List.of(AS_TRANS), frr.awaitRoute(OURS).asPath());
    assertEquals(List.of(OLD_AS, AS_TRANS), bed.up().awaitRoute(OURS).asPath());

    String upsUpdate = awaitPacket(bed.wire(), "192.0.2.2", UPS);
    assertFalse(upsUpdate.contains("AS4 Path"), upsUpdate);
    await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib(OLDS) && inOurRib(UPS));
    assertEquals(AsPath.sequence(OLD_AS), asPath(OLDS));
    assertEquals(AsPath.sequence(OLD_AS, AS_TRANS), asPath(UPS), upsUpdate);
  }

  /** The first packet tcpdump decoded from {@code source} whose text contains {@code needle}. */
  private static String awaitPacket(ManagedProcess tcpdump, String source, String needle) {
    String from = Pattern.quote(source) + "\\.\\d+ > ";
    return await("tcpdump: a packet from %s with %s".formatted(source, needle))
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                packets(tcpdump).stream()
                    .filter(
                        p ->
                            Pattern.compile("(?m)^\\s+" + from).matcher(p).find()
                                && p.contains(needle))
                    .findFirst()
                    .orElse(null),
            p -> p != null);
  }

  private static List<String> packets(ManagedProcess tcpdump) {
    try {
      return new ArrayList<>(List.of(PACKET_START.split(Files.readString(tcpdump.log()))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode json(String text) throws IOException {
    return JSON.readTree(text);
  }

  private boolean inOurRib(String prefix) {
    return server.rib().query(v -> v.route(Prefix.parse(prefix))).join() != null;
  }

  private Aggregator aggregator(String prefix) {
    return server
        .rib()
        .query(
            v ->
                v.route(Prefix.parse(prefix))
                    .paths()
                    .getFirst()
                    .attrs()
                    .attributes()
                    .orNull(Aggregator.class))
        .join();
  }

  private AsPath asPath(String prefix) {
    return server
        .rib()
        .query(v -> v.route(Prefix.parse(prefix)).paths().getFirst().attrs().asPath())
        .join();
  }
}
