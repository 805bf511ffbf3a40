package dev.sart.bgp.peer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Malformed bytes fed to a real {@link Peer} over a Netty {@link EmbeddedChannel}, and the exact
 * bytes that go out: the mapping of {@code ReceiveErrors} through the FSM and the connection, in
 * each state where it matters, and for a connection the FSM refuses ({@link Rejection}).
 */
class ReceiveErrorsWireTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String MARKER = "ffffffffffffffffffffffffffffffff";
  private static final String KEEPALIVE = MARKER + "0013" + "04";

  // the peer's OPEN: version 4, AS 65002, hold 90, id 192.0.2.2, capabilities IPv4 unicast and
  // 4-octet AS 65002
  private static final String PEER_OPEN =
      MARKER
          + "002d"
          + "01"
          + "04"
          + "fdea"
          + "005a"
          + "c0000202"
          + "10"
          + "0206"
          + "010400010001"
          + "0206"
          + "41040000fdea";
  // the same with the graceful restart capability (RFC 4724 §3): restart time 120 s, IPv4 unicast
  // with its forwarding state kept
  private static final String PEER_OPEN_GR =
      MARKER
          + "0037"
          + "01"
          + "04"
          + "fdea"
          + "005a"
          + "c0000202"
          + "1a"
          + "0206"
          + "010400010001"
          + "0206"
          + "41040000fdea"
          + "0208"
          + "4006"
          + "0078"
          + "0001"
          + "01"
          + "80";
  private static final String BASE =
      "40010100" + "4002060201" + "0000fdea" + "400304c0000202"; // ORIGIN, AS_PATH, NEXT_HOP

  private final Rib rib = new Rib(1);
  private EmbeddedChannel ch;
  private Peer peer;

  @AfterEach
  void close() {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
    rib.close();
  }

  /** A passive peer whose FSM took the connection: our OPEN is out, in OpenSent. */
  private PeerConfig.GracefulRestart gracefulRestart = PeerConfig.GracefulRestart.DEFAULT;

  private void openSent() throws Exception {
    ch = new Tcp();
    peer =
        new Peer(
            PeerConfig.builder(InetAddress.getByName("192.0.2.2"), 65002)
                .passive(true)
                .connectRetryTime(Duration.ofSeconds(1))
                .families(Set.of(Family.IPV4_UNICAST))
                .gracefulRestart(gracefulRestart)
                .build(),
            new FakeSpeaker(),
            ch.eventLoop(),
            1 << 20);
    peer.start();
    ch.runPendingTasks();
    assertEquals(State.ACTIVE, peer.status().state());
    peer.accept(ch);
    ch.runPendingTasks();
    assertEquals(State.OPEN_SENT, peer.status().state());
    List<String> out = sent();
    assertEquals(1, out.size(), out::toString);
    assertEquals("01", out.getFirst().substring(36, 38), "our OPEN");
  }

  private void established() throws Exception {
    established(PEER_OPEN);
  }

  private void established(String peerOpen) throws Exception {
    openSent();
    feed(peerOpen + KEEPALIVE);
    assertEquals(State.ESTABLISHED, peer.status().state());
    // our KEEPALIVE, then the End-of-RIB (RFC 4724 §2) once the RIB has taken the session in
    List<String> out = new ArrayList<>(sent());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (out.size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(10);
      ch.runPendingTasks();
      ch.runScheduledPendingTasks();
      out.addAll(sent());
    }
    assertEquals(List.of(KEEPALIVE, MARKER + "0017" + "02" + "00000000"), out);
  }

  @Test
  void aBadMarkerInOpenSentIsConnectionNotSynchronized() throws Exception {
    openSent();
    feed("00000000000000000000000000000000" + "0013" + "04");
    assertEquals(List.of(MARKER + "0015" + "03" + "0101"), sent());
    assertClosedAndIdle();
  }

  @Test
  void aWrongPeerAsInTheOpenIsBadPeerAs() throws Exception {
    openSent();
    feed(PEER_OPEN.replace("fdea", "fdeb")); // AS 65003 in My AS and in the 4-octet AS capability
    assertEquals(List.of(MARKER + "0015" + "03" + "0202"), sent());
    assertClosedAndIdle();
  }

  @Test
  void aKeepaliveOfTwentyOctetsIsBadMessageLengthWithTheLength() throws Exception {
    established();
    feed(MARKER + "0014" + "04" + "00");
    assertEquals(List.of(MARKER + "0017" + "03" + "0102" + "0014"), sent());
    assertClosedAndIdle();
  }

  @Test
  void anUnknownTypeInEstablishedIsBadMessageTypeWithTheType() throws Exception {
    established();
    feed(MARKER + "0013" + "07");
    assertEquals(List.of(MARKER + "0016" + "03" + "0103" + "07"), sent());
    assertClosedAndIdle();
  }

  @Test
  void anUnrecognizedWellKnownAttributeResetsWithTheAttributeAsData() throws Exception {
    established();
    String attrs = BASE + "40630100";
    feed(update(attrs, "18c63364"));
    // RFC 4271 §6.3: 3/2, the data is the unrecognized attribute (type, length and value)
    assertEquals(List.of(MARKER + "0019" + "03" + "0302" + "40630100"), sent());
    assertClosedAndIdle();
  }

  @Test
  void aBadOriginIsTreatAsWithdrawAndTheSessionStays() throws Exception {
    established();
    feed(update(BASE.replace("40010100", "40010103"), "18c63364"));
    assertEquals(List.of(), sent(), "no NOTIFICATION (RFC 7606 §7.1)");
    assertTrue(ch.isOpen());
    assertEquals(State.ESTABLISHED, peer.status().state());
  }

  @Test
  void aRouteRefreshOfTheWrongLengthIsRouteRefreshMessageError() throws Exception {
    established();
    // RFC 7313 §5: a BoRR whose length is not 23 (here 24) gets 7/1 with the whole message
    String borr = MARKER + "0018" + "05" + "0001" + "01" + "01" + "00";
    feed(borr);
    assertEquals(List.of(MARKER + "002d" + "03" + "0701" + borr), sent());
    assertClosedAndIdle();
  }

  @Test
  void aConnectionTheFsmRefusesIsReadAndAnswered() throws Exception {
    established();
    // a second connection while Established: the header error its bytes deserve, no OPEN
    EmbeddedChannel second = new Tcp();
    peer.accept(second);
    ch.runPendingTasks();
    second.runPendingTasks();
    second.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(MARKER + "0012" + "04")));
    assertEquals(List.of(MARKER + "0017" + "03" + "0102" + "0012"), sent(second));
    assertFalse(second.isOpen());
    // one that sends nothing: Cease / Connection Collision Resolution after the grace period
    EmbeddedChannel third = new Tcp();
    peer.accept(third);
    ch.runPendingTasks();
    third.runPendingTasks();
    assertEquals(List.of(), sent(third));
    third.advanceTimeBy(Rejection.GRACE_MILLIS, TimeUnit.MILLISECONDS);
    third.runScheduledPendingTasks();
    assertEquals(List.of(MARKER + "0015" + "03" + "0607"), sent(third));
    assertFalse(third.isOpen());
    // the session was not touched
    assertEquals(State.ESTABLISHED, peer.status().state());
    assertTrue(ch.isOpen());
    second.finishAndReleaseAll();
    third.finishAndReleaseAll();
  }

  /**
   * RFC 4724 §4.2: the peer restarted and its new connection's OPEN arrives while its old session
   * still looks Established: the old one is closed without a NOTIFICATION, its routes kept stale,
   * the new one goes on; what the peer sends again replaces them, its End-of-RIB removes the rest.
   */
  @Test
  void anOpenOnANewConnectionOfARestartingPeerEndsTheOldSessionAndKeepsItsRoutesStale()
      throws Exception {
    established(PEER_OPEN_GR);
    feed(update(BASE, "18c63364" + "18c63365")); // 198.51.100.0/24 and 198.51.101.0/24
    dev.sart.bgp.rib.Prefix p = dev.sart.bgp.rib.Prefix.parse("198.51.100.0/24");
    dev.sart.bgp.rib.Prefix q = dev.sart.bgp.rib.Prefix.parse("198.51.101.0/24");
    assertEquals(2, rib.query(v -> v.size()).join());

    EmbeddedChannel second = new Tcp();
    peer.accept(second);
    ch.runPendingTasks();
    second.runPendingTasks();
    List<String> open = sent(second);
    assertEquals(1, open.size(), open::toString);
    assertEquals("01", open.getFirst().substring(36, 38), "our OPEN on the new connection");
    second.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(PEER_OPEN_GR)));
    second.runPendingTasks();
    ch.runPendingTasks();
    assertEquals(List.of(), sent(), "the old session is closed without a NOTIFICATION");
    assertFalse(ch.isOpen());
    assertEquals(List.of(KEEPALIVE), sent(second));
    assertEquals(State.OPEN_CONFIRM, peer.status().state());
    assertTrue(rib.query(v -> v.route(p).paths().stream().allMatch(rib::isStale)).join());

    second.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(KEEPALIVE)));
    second.runPendingTasks();
    assertEquals(State.ESTABLISHED, peer.status().state());
    second.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(update(BASE, "18c63364"))));
    second.runPendingTasks();
    // the RIB takes the UPDATE on its own thread
    await("sent again: one path, not stale")
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                rib.query(
                        v ->
                            v.route(p).paths().size() == 1
                                && !rib.isStale(v.route(p).paths().get(0)))
                    .join());
    assertTrue(rib.query(v -> rib.isStale(v.route(q).paths().get(0))).join());
    // its End-of-RIB: the route it did not send again goes
    second.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(MARKER + "0017" + "02" + "00000000")));
    second.runPendingTasks();
    await("the stale route goes")
        .atMost(Duration.ofSeconds(5))
        .until(() -> rib.query(v -> v.route(q)).join() == null);
    assertEquals(1, rib.query(v -> v.size()).join());
    second.finishAndReleaseAll();
  }

  /**
   * With the helper turned off, a restarting peer gets no help: a new connection while Established
   * is refused (6/7, RFC 4271 §6.8), and its routes go with the session.
   */
  @Test
  void withTheHelperOffARestartingPeersRoutesGoAtOnce() throws Exception {
    gracefulRestart = new PeerConfig.GracefulRestart(false, Duration.ofSeconds(30));
    established(PEER_OPEN_GR);
    feed(update(BASE, "18c63364"));
    assertEquals(1, rib.query(v -> v.size()).join());
    EmbeddedChannel second = new Tcp();
    peer.accept(second);
    ch.runPendingTasks();
    second.runPendingTasks();
    second.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(PEER_OPEN_GR)));
    assertEquals(List.of(MARKER + "0015" + "03" + "0607"), sent(second));
    assertTrue(ch.isOpen());
    second.finishAndReleaseAll();
    // the connection fails (no NOTIFICATION): not kept
    ch.close();
    ch.runPendingTasks();
    assertEquals(State.IDLE, peer.status().state());
    assertEquals(0, rib.query(v -> v.size()).join());
  }

  @Test
  void ourOpenCarriesTheConfiguredRestartTime() throws Exception {
    gracefulRestart = new PeerConfig.GracefulRestart(true, Duration.ofSeconds(300));
    openSent();
    dev.sart.bgp.wire.Capability.GracefulRestart gr = Connection.gracefulRestart(peer.localOpen());
    assertEquals(300, gr.restartTime());
    assertEquals(List.of(), gr.families(), "no forwarding state kept: no AFI/SAFI");
  }

  private static String update(String attrs, String nlri) {
    int length = 19 + 2 + 2 + attrs.length() / 2 + nlri.length() / 2;
    return MARKER
        + String.format("%04x", length)
        + "02"
        + "0000"
        + String.format("%04x", attrs.length() / 2)
        + attrs
        + nlri;
  }

  private void feed(String hex) {
    ch.writeInbound(Unpooled.wrappedBuffer(HEX.parseHex(hex)));
    ch.runPendingTasks();
  }

  private void assertClosedAndIdle() {
    ch.runPendingTasks();
    assertFalse(ch.isOpen(), "the connection is closed after the NOTIFICATION");
    assertEquals(State.IDLE, peer.status().state());
  }

  private List<String> sent() {
    return sent(ch);
  }

  /** What went out on {@code c} since the last call, as whole messages in hex. */
  private static List<String> sent(EmbeddedChannel c) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (Object o; (o = c.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      byte[] a = new byte[b.readableBytes()];
      b.readBytes(a);
      b.release();
      bytes.writeBytes(a);
    }
    byte[] all = bytes.toByteArray();
    List<String> messages = new ArrayList<>();
    for (int i = 0; i + 19 <= all.length; ) {
      int length = ((all[i + 16] & 0xff) << 8) | (all[i + 17] & 0xff);
      messages.add(HEX.formatHex(all, i, i + length));
      i += length;
    }
    return messages;
  }

  /** An embedded channel with TCP addresses, as the peer's connection has. */
  private static final class Tcp extends EmbeddedChannel {
    @Override
    protected SocketAddress localAddress0() {
      return new InetSocketAddress("192.0.2.1", 179);
    }

    @Override
    protected SocketAddress remoteAddress0() {
      return new InetSocketAddress("192.0.2.2", 40000);
    }
  }

  private final class FakeSpeaker implements Peer.Speaker {
    @Override
    public long localAs() {
      return 65001;
    }

    @Override
    public int routerId() {
      return Ip.parseV4("192.0.2.1");
    }

    @Override
    public Rib rib() {
      return rib;
    }

    @Override
    public ChannelFuture connect(Peer p, ChannelInitializer<Channel> initializer) {
      throw new AssertionError("a passive peer never connects");
    }

    @Override
    public void stateChanged(Peer p, State from, State to) {}
  }
}
