package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Sequence numbers, acknowledgements, dumps and batches against a scripted kernel. */
class NetlinkSocketTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] bytes(java.nio.ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  @Test
  void aRequestIsFramedWithRequestAndAckFlagsAndAFreshSequenceNumber() {
    ScriptedTransport t =
        new ScriptedTransport((m, r) -> r.datagram(ScriptedTransport.ack(m, 0, null)));
    Links links = new Links(new NetlinkSocket(t));
    links.setUp("v0");
    links.setDown("v0");
    // struct nlmsghdr {len 40, RTM_NEWLINK, NLM_F_REQUEST|NLM_F_ACK, seq 1, pid 0}
    // struct ifinfomsg {AF_UNSPEC, 0, 0, index 0, flags IFF_UP, change IFF_UP}
    // IFLA_IFNAME "v0\0" padded to 8
    assertArrayEquals(
        HEX.parseHex(
            "28000000"
                + "1000"
                + "0500"
                + "01000000"
                + "00000000"
                + "00000000"
                + "00000000"
                + "01000000"
                + "01000000"
                + "0700"
                + "0300"
                + "76300000"),
        bytes(t.sent.get(0)));
    assertEquals("02000000", HEX.formatHex(bytes(t.sent.get(1)), 8, 12), "seq 2");
    assertEquals("00000000", HEX.formatHex(bytes(t.sent.get(1)), 24, 28), "down: flags 0");
  }

  @Test
  void anErrorNamesTheOperationTheErrnoAndTheExtendedAck() {
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) ->
                r.datagram(
                    ScriptedTransport.ack(
                        m, Errno.EINVAL, "Invalid prefix for given prefix length")));
    NetlinkException e =
        assertThrows(NetlinkException.class, () -> new Links(new NetlinkSocket(t)).setMtu("v0", 9));
    assertEquals(
        "set link v0 mtu 9: Invalid argument (EINVAL): Invalid prefix for given prefix length",
        e.getMessage());
    assertEquals(Errno.EINVAL, e.errno());
    assertEquals("Invalid prefix for given prefix length", e.extAck());
    assertEquals("set link v0 mtu 9", e.operation());
  }

  @Test
  void repliesToEarlierRequestsAreSkipped() {
    List<Message> seen = new ArrayList<>();
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) -> {
              if (!seen.isEmpty()) {
                // a late error for the first request arrives before the second one's ack
                r.datagram(ScriptedTransport.ack(seen.getFirst(), Errno.EEXIST, null));
              }
              seen.add(m);
              r.datagram(ScriptedTransport.ack(m, 0, null));
            });
    Links links = new Links(new NetlinkSocket(t));
    links.setUp("v0");
    links.setUp("v1"); // must not see the stale EEXIST
  }

  @Test
  void aDumpGathersEveryPartUntilDone() {
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) -> {
              for (int part = 0; part < 3; part++) {
                MessageWriter w = new MessageWriter();
                for (int i = 0; i < 2; i++) {
                  newLink(w, m.seq(), 0, part * 2 + i + 1, "if" + (part * 2 + i + 1));
                }
                if (part == 2) {
                  ScriptedTransport.done(w, m.seq(), 0, 0);
                }
                r.datagram(w);
              }
            });
    List<Link> links = new Links(new NetlinkSocket(t)).list();
    assertEquals(List.of(1, 2, 3, 4, 5, 6), links.stream().map(Link::index).toList());
    assertEquals("if6", links.get(5).name());
    // struct nlmsghdr flags: NLM_F_REQUEST | NLM_F_DUMP, no ack
    assertEquals("0103", HEX.formatHex(bytes(t.sent.get(0)), 6, 8));
  }

  @Test
  void anInterruptedDumpStartsOver() {
    AtomicInteger attempts = new AtomicInteger();
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) -> {
              int attempt = attempts.incrementAndGet();
              int flags = attempt == 1 ? Rtnl.NLM_F_DUMP_INTR : 0;
              MessageWriter w = new MessageWriter();
              newLink(w, m.seq(), 0, 1, "stale");
              r.datagram(w);
              MessageWriter last = new MessageWriter();
              newLink(last, m.seq(), flags, 2, attempt == 1 ? "stale" : "fresh");
              ScriptedTransport.done(last, m.seq(), flags, 0);
              r.datagram(last);
            });
    NetlinkSocket socket = new NetlinkSocket(t);
    List<Link> links = new Links(socket).list();
    assertEquals(2, attempts.get());
    assertEquals("fresh", links.get(1).name());
    assertEquals(1, socket.dumpRetries());
  }

  @Test
  void aDumpInterruptedEveryTimeFailsAfterTheLastAttempt() {
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) -> {
              MessageWriter w = new MessageWriter();
              ScriptedTransport.done(w, m.seq(), Rtnl.NLM_F_DUMP_INTR, 0);
              r.datagram(w);
            });
    NetlinkException e =
        assertThrows(NetlinkException.class, () -> new Links(new NetlinkSocket(t)).list());
    assertEquals(Errno.EINTR, e.errno());
    assertEquals("list links (interrupted by concurrent changes 10 times)", e.operation());
  }

  @Test
  void aDumpThatFailsReportsTheStatusOfDone() {
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) -> {
              MessageWriter w = new MessageWriter();
              ScriptedTransport.done(w, m.seq(), 0, -Errno.EINVAL);
              r.datagram(w);
            });
    NetlinkException e =
        assertThrows(NetlinkException.class, () -> new Links(new NetlinkSocket(t)).list());
    assertEquals(Errno.EINVAL, e.errno());
  }

  @Test
  void aBatchSendsChunksFencedByAnAcknowledgedNoopAndReportsEachFailure() {
    List<Integer> noops = new ArrayList<>();
    ScriptedTransport t =
        new ScriptedTransport(
            (m, r) -> {
              if (m.type() == Rtnl.NLMSG_NOOP) {
                noops.add(m.seq());
                r.datagram(ScriptedTransport.ack(m, 0, null));
                return;
              }
              assertEquals(0, m.flags() & Rtnl.NLM_F_ACK, "no ack is asked for a batched request");
              int address = m.payload().getInt(Rtnl.IFADDRMSG_LEN + Rtnl.NLA_HDRLEN);
              int last = Integer.reverseBytes(address) & 0xff;
              if (last == 5 || last == 44) {
                r.datagram(ScriptedTransport.ack(m, Errno.EEXIST, null));
              }
            });
    Netlink nl = new Netlink(new NetlinkSocket(t));
    Batch batch = nl.batch();
    for (int i = 0; i < 600; i++) {
      batch.addAddress(
          Address.of(
              7,
              List.of("192.0.2.", "198.51.100.", "203.0.113.").get(i / 200) + (i % 200) + "/24"));
    }
    BatchResult result = batch.execute();
    assertEquals(600, result.size());
    assertEquals(3, t.sent.size(), "256 + 256 + 88 requests");
    assertEquals(3, noops.size());
    assertEquals(Set.of(5, 44, 205, 244, 405, 444), result.failures().keySet());
    assertEquals(
        "add address 198.51.100.44/24 dev #7: File exists (EEXIST)",
        result.failure(244).getMessage());
    assertNull(result.failure(0));
  }

  private static void newLink(MessageWriter w, int seq, int flags, int index, String name) {
    int start = w.begin(Rtnl.RTM_NEWLINK, Rtnl.NLM_F_MULTI | flags, seq);
    LinkCodec.header(w, index, Rtnl.IFF_UP, 0);
    w.attrString(Rtnl.IFLA_IFNAME, name);
    w.end(start);
  }
}
