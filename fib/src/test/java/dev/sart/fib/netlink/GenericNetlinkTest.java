package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Generic netlink and messages built outside the library, against the running kernel. */
class GenericNetlinkTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;

  @BeforeEach
  void open() {
    node = testbed.topology().node("a");
    ns = Netns.named(node.netns());
  }

  @AfterEach
  void close() {
    ns.close();
  }

  @Test
  void theControllerResolvesItselfAndRefusesAnUnknownFamily() {
    try (var genl = GenericNetlink.open(ns)) {
      // linux/genetlink.h: GENL_ID_CTRL, the controller's fixed id, named "nlctrl"
      assertEquals(0x10, genl.familyId("nlctrl"));
      var e = assertThrows(NetlinkException.class, () -> genl.familyId("nosuchfamily"));
      assertEquals(Errno.ENOENT, e.errno());
      assertTrue(
          e.getMessage().startsWith("resolve generic netlink family nosuchfamily: "),
          e.getMessage());
    }
  }

  @Test
  void fouIsAbsentOnAKernelWithoutItsModule() {
    assumeFalse(Files.isDirectory(Path.of("/sys/module/fou")), "this kernel has fou");
    try (var genl = GenericNetlink.open(ns)) {
      var e = assertThrows(NetlinkException.class, () -> genl.familyId("fou"));
      assertEquals(Errno.ENOENT, e.errno());
    }
  }

  @Test
  void aMessageBuiltElsewhereIsSentWithTheSocketsSequenceNumber() {
    // RTM_NEWLINK "br7" kind bridge, NLM_F_CREATE | NLM_F_EXCL, built here by hand with seq 99
    var b = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
    b.position(16);
    b.put(new byte[16]); // struct ifinfomsg
    b.putShort((short) 8).putShort((short) Rtnl.IFLA_IFNAME).put("br7\0".getBytes());
    b.putShort((short) 16).putShort((short) (Rtnl.IFLA_LINKINFO | Rtnl.NLA_F_NESTED));
    b.putShort((short) 11).putShort((short) Rtnl.IFLA_INFO_KIND).put("bridge\0".getBytes());
    b.put((byte) 0);
    int len = b.position();
    b.putInt(0, len).putShort(4, (short) Rtnl.RTM_NEWLINK);
    b.putShort(6, (short) (Rtnl.NLM_F_REQUEST | Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL));
    b.putInt(8, 99);
    var message = new byte[len];
    b.get(0, message);
    try (var nl = Netlink.open(ns)) {
      nl.execute(message, "add bridge br7");
      assertEquals("bridge", nl.links().get("br7").kind());
      assertTrue(Oracle.ip(node, "link", "show", "br7").size() == 1, "ip link sees it");
      var e = assertThrows(NetlinkException.class, () -> nl.execute(message, "add bridge br7"));
      assertEquals(Errno.EEXIST, e.errno(), "NLM_F_EXCL was sent");
      assertTrue(e.getMessage().startsWith("add bridge br7: "), e.getMessage());
    }
  }
}
