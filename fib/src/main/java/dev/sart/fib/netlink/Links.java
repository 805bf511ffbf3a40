package dev.sart.fib.netlink;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Network interfaces: list, get, create (veth, bridge, VXLAN), change (up/down, MTU, MAC, alias,
 * master, namespace, name) and delete. Links are named by IFLA_IFNAME; the kernel looks them up in
 * the socket's namespace.
 */
public final class Links {
  private final NetlinkSocket socket;

  Links(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** Every link of the namespace (RTM_GETLINK dump). */
  public List<Link> list() {
    return socket
        .dump(
            new Request(
                Rtnl.RTM_GETLINK,
                Rtnl.NLM_F_DUMP,
                () -> "list links",
                w -> LinkCodec.header(w, 0, 0, 0)))
        .stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWLINK)
        .map(LinkCodec::parse)
        .toList();
  }

  /** The link named {@code name}, or empty when there is none. */
  public Optional<Link> find(String name) {
    return find(0, name);
  }

  /** The link with index {@code index}, or empty when there is none. */
  public Optional<Link> find(int index) {
    return find(index, null);
  }

  /** The link named {@code name}; throws ENODEV when there is none. */
  public Link get(String name) {
    return find(name)
        .orElseThrow(() -> new NetlinkException("get link " + name, Errno.ENODEV, null));
  }

  /** The link with index {@code index}; throws ENODEV when there is none. */
  public Link get(int index) {
    return find(index)
        .orElseThrow(() -> new NetlinkException("get link #" + index, Errno.ENODEV, null));
  }

  private Optional<Link> find(int index, String name) {
    try {
      List<Message> replies =
          socket.query(
              new Request(
                  Rtnl.RTM_GETLINK,
                  0,
                  () -> "get link " + (name != null ? name : "#" + index),
                  w -> {
                    LinkCodec.header(w, index, 0, 0);
                    if (name != null) {
                      w.attrString(Rtnl.IFLA_IFNAME, name);
                    }
                  }));
      return replies.stream()
          .filter(m -> m.type() == Rtnl.RTM_NEWLINK)
          .map(LinkCodec::parse)
          .findFirst();
    } catch (NetlinkException e) {
      if (e.errno() == Errno.ENODEV) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Creates a veth pair in this namespace. */
  public void addVeth(String name, String peerName) {
    addVeth(name, peerName, null);
  }

  /**
   * Creates a veth pair whose peer end is created directly in {@code peerNamespace} (by its fd).
   */
  public void addVeth(String name, String peerName, Netns peerNamespace) {
    create(
        name,
        "veth",
        w -> LinkCodec.vethPeer(w, peerName, peerNamespace),
        "add veth "
            + name
            + " peer "
            + peerName
            + (peerNamespace == null ? "" : " in " + peerNamespace));
  }

  /** Creates a Linux bridge. */
  public void addBridge(String name) {
    create(name, "bridge", null, "add bridge " + name);
  }

  /** Creates a VXLAN link. */
  public void addVxlan(String name, Vxlan vxlan) {
    create(
        name,
        "vxlan",
        w -> LinkCodec.vxlanData(w, vxlan),
        "add vxlan " + name + " id " + vxlan.vni());
  }

  private void create(String name, String kind, Consumer<MessageWriter> data, String description) {
    socket.execute(
        new Request(
            Rtnl.RTM_NEWLINK,
            Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL,
            () -> description,
            w -> {
              LinkCodec.header(w, 0, 0, 0);
              w.attrString(Rtnl.IFLA_IFNAME, name);
              LinkCodec.linkInfo(w, kind, data);
            }));
  }

  public void setUp(String name) {
    change(name, "set link " + name + " up", Rtnl.IFF_UP, Rtnl.IFF_UP, null);
  }

  public void setDown(String name) {
    change(name, "set link " + name + " down", 0, Rtnl.IFF_UP, null);
  }

  public void setMtu(String name, int mtu) {
    change(name, "set link " + name + " mtu " + mtu, 0, 0, w -> w.attrU32(Rtnl.IFLA_MTU, mtu));
  }

  public void setMac(String name, MacAddress mac) {
    change(
        name,
        "set link " + name + " address " + mac,
        0,
        0,
        w -> w.attr(Rtnl.IFLA_ADDRESS, mac.bytes()));
  }

  /** Sets IFLA_IFALIAS; an empty alias removes it. */
  public void setAlias(String name, String alias) {
    change(
        name,
        "set link " + name + " alias '" + alias + "'",
        0,
        0,
        w -> w.attrString(Rtnl.IFLA_IFALIAS, alias));
  }

  /** Makes the link a port of {@code master} (a bridge). */
  public void setMaster(String name, String master) {
    int masterIndex = get(master).index();
    change(
        name,
        "set link " + name + " master " + master,
        0,
        0,
        w -> w.attrU32(Rtnl.IFLA_MASTER, masterIndex));
  }

  /** Removes the link from its master. */
  public void setNoMaster(String name) {
    change(name, "set link " + name + " nomaster", 0, 0, w -> w.attrU32(Rtnl.IFLA_MASTER, 0));
  }

  /** Moves the link into another network namespace (IFLA_NET_NS_FD). */
  public void setNamespace(String name, Netns target) {
    change(
        name,
        "move link " + name + " to " + target,
        0,
        0,
        w -> w.attrU32(Rtnl.IFLA_NET_NS_FD, target.fd()));
  }

  /** Renames a link (it must be down). */
  public void rename(String name, String newName) {
    int index = get(name).index();
    socket.execute(
        new Request(
            Rtnl.RTM_NEWLINK,
            0,
            () -> "rename link " + name + " to " + newName,
            w -> {
              LinkCodec.header(w, index, 0, 0);
              w.attrString(Rtnl.IFLA_IFNAME, newName);
            }));
  }

  /** Deletes a link (deleting one end of a veth pair deletes both). */
  public void delete(String name) {
    socket.execute(
        new Request(
            Rtnl.RTM_DELLINK,
            0,
            () -> "delete link " + name,
            w -> {
              LinkCodec.header(w, 0, 0, 0);
              w.attrString(Rtnl.IFLA_IFNAME, name);
            }));
  }

  private void change(
      String name, String description, int flags, int change, Consumer<MessageWriter> attrs) {
    socket.execute(
        new Request(
            Rtnl.RTM_NEWLINK,
            0,
            () -> description,
            w -> {
              LinkCodec.header(w, 0, flags, change);
              w.attrString(Rtnl.IFLA_IFNAME, name);
              if (attrs != null) {
                attrs.accept(w);
              }
            }));
  }
}
