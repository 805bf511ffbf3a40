package dev.sart.cli;

import com.google.protobuf.Any;
import dev.sart.proto.v1.*;
import io.grpc.ManagedChannel;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code sart bgp ...}: sart's commands, same names and JSON. */
@Command(name = "bgp", description = "The BGP speaker")
final class BgpCommands {

  /** Shared plumbing: the root options, a stub, output. */
  static final class Ctx {
    final CommandSpec spec;

    Ctx(CommandSpec spec) {
      this.spec = spec;
    }

    Sart root() {
      return (Sart) spec.root().userObject();
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    <T> T call(Function<BgpApiGrpc.BgpApiBlockingStub, T> f) {
      ManagedChannel ch = root().channel();
      try {
        return f.apply(BgpApiGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS));
      } finally {
        Sart.close(ch);
      }
    }

    Output.Format format() {
      return root().output;
    }
  }

  static AddressFamily family(String afi, String safi) {
    AddressFamily.Builder b = AddressFamily.newBuilder();
    b.setAfi(
        switch (afi.toLowerCase(Locale.ROOT)) {
          case "ipv4", "4" -> AddressFamily.Afi.AFI_IP4;
          case "ipv6", "6" -> AddressFamily.Afi.AFI_IP6;
          default -> throw new IllegalArgumentException("afi must be ipv4 or ipv6: " + afi);
        });
    b.setSafi(
        "multicast".equalsIgnoreCase(safi)
            ? AddressFamily.Safi.SAFI_MULTICAST
            : AddressFamily.Safi.SAFI_UNICAST);
    return b.build();
  }

  static void printPaths(Ctx c, List<Path> paths) {
    if (c.format() != Output.Format.plain) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("paths", paths.stream().map(Views::path).toList());
      Output.structured(c.out(), c.format(), m);
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (Path p : paths) {
      rows.add(
          List.of(
              (p.getBest() ? "*" : "") + (p.getStale() ? "S" : ""), // S: stale (RFC 4724)
              p.getNlri(),
              String.join(",", p.getNextHopsList()),
              Views.asPath(p),
              Views.origin(p.getOrigin()),
              p.hasLocalPref() ? Integer.toUnsignedString(p.getLocalPref()) : "-",
              p.hasMed() ? Integer.toUnsignedString(p.getMed()) : "-",
              from(p)));
    }
    Output.table(
        c.out(),
        List.of("BEST", "PREFIX", "NEXT HOP", "AS PATH", "ORIGIN", "LOCAL PREF", "MED", "FROM"),
        rows);
  }

  /** A CLUSTER_ID other than the router id (RFC 4456 §7): set with {@code cluster_id}. */
  static boolean ownClusterId(BgpInfo i) {
    return !i.getClusterId().isEmpty() && !i.getClusterId().equals(i.getRouterId());
  }

  /** The peer, with the ADD-PATH Path Identifier (RFC 7911) when it sent one: "192.0.2.2 #2". */
  static String from(Path p) {
    if (p.getPeerAddr().isEmpty()) {
      return "local";
    }
    return p.getPathId() == 0
        ? p.getPeerAddr()
        : p.getPeerAddr() + " #" + Integer.toUnsignedString(p.getPathId());
  }

  @Command(name = "global", description = "The speaker itself")
  static final class Global {

    @Command(name = "get", description = "AS, router id, port, multipath")
    static final class Get implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        BgpInfo i = c.call(s -> s.getBgpInfo(GetBgpInfoRequest.getDefaultInstance())).getInfo();
        if (c.format() != Output.Format.plain) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("asn", Integer.toUnsignedLong(i.getAsn()));
          m.put("routerId", i.getRouterId());
          m.put("port", i.getPort());
          m.put("multiPath", i.getMultiPath());
          if (ownClusterId(i)) {
            m.put("clusterId", i.getClusterId()); // RFC 4456 §7; only when set apart
          }
          Output.structured(c.out(), c.format(), m);
        } else {
          c.out()
              .printf(
                  "sartd BGP speaker, port %d%n  ASN:        %s%n  Router ID:  %s%n  Multipath:  %s%n",
                  i.getPort(),
                  Integer.toUnsignedString(i.getAsn()),
                  i.getRouterId(),
                  i.getMultiPath());
          if (ownClusterId(i)) {
            c.out().printf("  Cluster ID: %s%n", i.getClusterId());
          }
          c.out().flush();
        }
        return 0;
      }
    }

    @Command(name = "set", description = "Set the AS, router id or multipath")
    static final class Set implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Option(names = "--asn", description = "local AS")
      Long asn;

      @Option(names = "--router-id", description = "router id (IPv4)")
      String routerId;

      @Option(names = "--multi-path", arity = "1", description = "true or false")
      Boolean multiPath;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        if (asn == null && routerId == null && multiPath == null) {
          throw new IllegalArgumentException(
              "give at least one of --asn, --router-id, --multi-path");
        }
        c.call(
            s -> {
              if (asn != null) {
                s.setAS(SetASRequest.newBuilder().setAsn(asn.intValue()).build());
              }
              if (routerId != null) {
                s.setRouterId(SetRouterIdRequest.newBuilder().setRouterId(routerId).build());
              }
              if (multiPath != null) {
                s.configureMultiPath(
                    ConfigureMultiPathRequest.newBuilder().setEnable(multiPath).build());
              }
              return null;
            });
        return 0;
      }
    }

    @Command(name = "health", description = "Exit 0 when the speaker answers")
    static final class Health implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        c.call(s -> s.health(HealthRequest.getDefaultInstance()));
        c.out().println("ok");
        c.out().flush();
        return 0;
      }
    }

    @Command(name = "rib", description = "The Loc-RIB")
    static final class Rib {
      @Option(
          names = {"-a", "--afi"},
          defaultValue = "ipv4",
          scope = picocli.CommandLine.ScopeType.INHERIT,
          description = "ipv4 or ipv6")
      String afi;

      @Option(
          names = {"-s", "--safi"},
          defaultValue = "unicast",
          scope = picocli.CommandLine.ScopeType.INHERIT,
          description = "unicast")
      String safi;

      @Command(name = "get", description = "Every path of the family, best marked")
      static final class Get implements Callable<Integer> {
        @Spec CommandSpec spec;
        @ParentCommand Rib rib;

        @Override
        public Integer call() {
          Ctx c = new Ctx(spec);
          printPaths(
              c,
              c.call(
                      s ->
                          s.getPath(
                              GetPathRequest.newBuilder()
                                  .setFamily(family(rib.afi, rib.safi))
                                  .build()))
                  .getPathsList());
          return 0;
        }
      }

      @Command(name = "add", description = "Originate prefixes")
      static final class Add implements Callable<Integer> {
        @Spec CommandSpec spec;
        @ParentCommand Rib rib;

        @Parameters(arity = "1..*", description = "prefixes")
        List<String> prefixes;

        @Option(
            names = {"-t", "--attr"},
            description =
                "origin=igp|egp|incomplete, local_pref=N, med=N, "
                    + "community=A:B, large_community=A:B:C (repeatable)")
        List<String> attrs = new ArrayList<>();

        @Override
        public Integer call() {
          Ctx c = new Ctx(spec);
          AddPathRequest.Builder b =
              AddPathRequest.newBuilder()
                  .setFamily(family(rib.afi, rib.safi))
                  .addAllPrefixes(prefixes);
          List<Integer> communities = new ArrayList<>();
          List<LargeCommunity> large = new ArrayList<>();
          for (String a : attrs) {
            int eq = a.indexOf('=');
            if (eq < 0) {
              throw new IllegalArgumentException("attributes are key=value: " + a);
            }
            String k = a.substring(0, eq).strip();
            String v = a.substring(eq + 1).strip();
            switch (k) {
              case "origin" ->
                  b.addAttributes(
                      Any.pack(
                          OriginAttribute.newBuilder()
                              .setValue(
                                  switch (v) {
                                    case "igp", "i", "0" -> 0;
                                    case "egp", "e", "1" -> 1;
                                    case "incomplete", "?", "2" -> 2;
                                    default ->
                                        throw new IllegalArgumentException(
                                            "origin is igp, egp or incomplete: " + v);
                                  })
                              .build()));
              case "local_pref" ->
                  b.addAttributes(
                      Any.pack(
                          LocalPrefAttribute.newBuilder()
                              .setValue(Integer.parseUnsignedInt(v))
                              .build()));
              case "med", "multi_exit_disc" ->
                  b.addAttributes(
                      Any.pack(
                          MultiExitDiscAttribute.newBuilder()
                              .setValue(Integer.parseUnsignedInt(v))
                              .build()));
              case "community" -> {
                String[] p = v.split(":");
                communities.add((Integer.parseInt(p[0]) << 16) | Integer.parseInt(p[1]));
              }
              case "large_community" -> {
                String[] p = v.split(":");
                large.add(
                    LargeCommunity.newBuilder()
                        .setGlobalAdmin(Integer.parseUnsignedInt(p[0]))
                        .setLocalData1(Integer.parseUnsignedInt(p[1]))
                        .setLocalData2(Integer.parseUnsignedInt(p[2]))
                        .build());
              }
              default ->
                  throw new IllegalArgumentException(
                      "unknown attribute "
                          + k
                          + " (origin, local_pref, med, community, large_community)");
            }
          }
          if (!communities.isEmpty()) {
            b.addAttributes(
                Any.pack(CommunitiesAttribute.newBuilder().addAllCommunities(communities).build()));
          }
          if (!large.isEmpty()) {
            b.addAttributes(
                Any.pack(LargeCommunitiesAttribute.newBuilder().addAllCommunities(large).build()));
          }
          c.call(s -> s.addPath(b.build()));
          return 0;
        }
      }

      @Command(name = "del", description = "Stop originating prefixes")
      static final class Del implements Callable<Integer> {
        @Spec CommandSpec spec;
        @ParentCommand Rib rib;

        @Parameters(arity = "1..*", description = "prefixes")
        List<String> prefixes;

        @Override
        public Integer call() {
          Ctx c = new Ctx(spec);
          c.call(
              s ->
                  s.deletePath(
                      DeletePathRequest.newBuilder()
                          .setFamily(family(rib.afi, rib.safi))
                          .addAllPrefixes(prefixes)
                          .build()));
          return 0;
        }
      }
    }
  }

  @Command(name = "neighbor", description = "Peers")
  static final class Neighbor {

    static void printPeers(Ctx c, List<Peer> peers, boolean list) {
      if (c.format() != Output.Format.plain) {
        Object v =
            list
                ? Map.of("peers", peers.stream().map(Views::peer).toList())
                : Views.peer(peers.getFirst());
        Output.structured(c.out(), c.format(), v);
        return;
      }
      if (!list) {
        NeighborDetail.print(c.out(), peers.getFirst());
        return;
      }
      List<List<String>> rows = new ArrayList<>();
      for (Peer p : peers) {
        rows.add(
            List.of(
                Views.neighbor(p),
                Integer.toUnsignedString(p.getAsn()),
                Views.state(p.getState()),
                Views.uptime(p),
                p.getRouterId().isEmpty() ? "-" : p.getRouterId(),
                p.getHoldTime() + "/" + p.getKeepaliveTime(),
                p.getRecvCounter().getUpdate() + "/" + p.getSendCounter().getUpdate(),
                NeighborDetail.accepted(p) + "/" + NeighborDetail.advertised(p),
                p.getName()));
      }
      Output.table(
          c.out(),
          List.of(
              "ADDRESS",
              "ASN",
              "STATE",
              "UPTIME",
              "ROUTER ID",
              "HOLD/KA",
              "UPDATES IN/OUT",
              "PREFIXES IN/OUT",
              "NAME"),
          rows);
      for (Peer p : peers) {
        String why = NeighborDetail.why(p);
        if (!why.isEmpty()) {
          c.out().println(Views.neighbor(p) + " " + why.strip());
        }
      }
      c.out().flush();
    }

    @Command(name = "get", description = "One peer")
    static final class Get implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(description = "peer address")
      String addr;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        printPeers(
            c,
            List.of(
                c.call(s -> s.getNeighbor(GetNeighborRequest.newBuilder().setAddr(addr).build()))
                    .getPeer()),
            false);
        return 0;
      }
    }

    @Command(name = "list", description = "All peers")
    static final class List_ implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        printPeers(
            c,
            c.call(s -> s.listNeighbor(ListNeighborRequest.getDefaultInstance())).getPeersList(),
            true);
        return 0;
      }
    }

    @Command(name = "add", description = "Add a peer")
    static final class Add implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(index = "0", description = "peer address")
      String addr;

      @Parameters(index = "1", description = "peer AS")
      long asn;

      @Option(names = "--passive", description = "never connect, only accept")
      boolean passive;

      @Option(names = "--name", description = "a name (default ASN/address)")
      String name;

      @Option(names = "--hold-time", description = "seconds (0 or 3..65535)", defaultValue = "90")
      int holdTime;

      @Option(
          names = "--keepalive-time",
          description = "seconds (default: a third of the hold time)")
      Integer keepalive;

      @Option(names = "--connect-retry-time", description = "seconds", defaultValue = "10")
      int connectRetry;

      @Option(names = "--password", description = "TCP MD5 password")
      String password;

      @Option(names = "--multihop", description = "eBGP multihop TTL")
      Integer multihop;

      @Option(names = "--ttl-security", description = "GTSM (RFC 5082)")
      boolean ttlSecurity;

      @Option(names = "--family", description = "ipv4 or ipv6 (repeatable; default: the address's)")
      List<String> families = new ArrayList<>();

      @Option(
          names = "--import-policy",
          description = "a policy defined in the speaker, applied to received routes")
      String importPolicy;

      @Option(
          names = "--export-policy",
          description = "a policy defined in the speaker, applied to routes sent")
      String exportPolicy;

      @Option(
          names = "--max-prefix",
          description = "most prefixes accepted per family; more: Cease/1 (RFC 4486)")
      Long maxPrefix;

      @Option(
          names = "--max-prefix-restart",
          description =
              "seconds until a session closed for max-prefix restarts (default: stays down)")
      Integer maxPrefixRestart;

      @Option(
          names = "--max-prefix-warning-only",
          description = "only log when the limit is exceeded")
      boolean maxPrefixWarningOnly;

      @Option(
          names = "--soft-reconfiguration-inbound",
          description =
              "keep the routes as received (policy changes apply without a route refresh)")
      boolean softReconfigurationInbound;

      @Option(
          names = "--advertise-peer-as",
          description =
              "send this eBGP peer routes whose AS_PATH holds its AS "
                  + "(default: not sent, it would drop them as loops; for a peer with allowas-in)")
      boolean advertisePeerAs;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        Peer.Builder p =
            Peer.newBuilder()
                .setAddress(addr)
                .setAsn((int) asn)
                .setPassiveOpen(passive)
                .setHoldTime(holdTime)
                .setConnectRetryTime(connectRetry)
                .setTtlSecurity(ttlSecurity);
        if (name != null) {
          p.setName(name);
        }
        if (keepalive != null) {
          p.setKeepaliveTime(keepalive);
        }
        if (password != null) {
          p.setPassword(password);
        }
        if (multihop != null) {
          p.setMultihopTtl(multihop);
        }
        for (String f : families) {
          p.addFamilies(family(f, "unicast"));
        }
        if (importPolicy != null) {
          p.setImportPolicy(importPolicy);
        }
        if (exportPolicy != null) {
          p.setExportPolicy(exportPolicy);
        }
        if (maxPrefix != null) {
          if (maxPrefix < 1 || maxPrefix > 0xffff_ffffL) {
            throw new IllegalArgumentException("--max-prefix is 1..4294967295: " + maxPrefix);
          }
          p.setMaxPrefix(
              MaxPrefix.newBuilder()
                  .setLimit(maxPrefix.intValue())
                  .setWarningOnly(maxPrefixWarningOnly)
                  .setRestartTime(maxPrefixRestart == null ? 0 : maxPrefixRestart));
        } else if (maxPrefixRestart != null || maxPrefixWarningOnly) {
          throw new IllegalArgumentException(
              "--max-prefix-restart and --max-prefix-warning-only need --max-prefix");
        }
        p.setSoftReconfigurationInbound(softReconfigurationInbound)
            .setAdvertisePeerAs(advertisePeerAs);
        c.call(s -> s.addPeer(AddPeerRequest.newBuilder().setPeer(p).build()));
        return 0;
      }
    }

    @Command(name = "del", description = "Delete a peer (Cease, routes withdrawn)")
    static final class Del implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(description = "peer address")
      String addr;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        c.call(s -> s.deletePeer(DeletePeerRequest.newBuilder().setAddr(addr).build()));
        return 0;
      }
    }

    @Command(
        name = "refresh",
        description =
            "Route refresh: ask the peer to send its routes again (--in, RFC 2918) "
                + "or send it ours again (--out)")
    static final class Refresh implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(description = "peer address")
      String addr;

      @Option(names = "--in", description = "ask the peer (default)")
      boolean in;

      @Option(names = "--out", description = "send ours")
      boolean out;

      @Override
      public Integer call() {
        if (in && out) {
          throw new IllegalArgumentException("give --in or --out, not both");
        }
        Ctx c = new Ctx(spec);
        c.call(
            s ->
                s.refreshNeighbor(
                    RefreshNeighborRequest.newBuilder().setAddr(addr).setSoftIn(!out).build()));
        return 0;
      }
    }

    @Command(name = "rib", description = "What a peer sent us (in) or what we send it (out)")
    static final class Rib implements Callable<Integer> {
      @Spec CommandSpec spec;

      @Parameters(description = "peer address")
      String addr;

      @Option(
          names = {"-k", "--kind"},
          defaultValue = "in",
          description = "in or out")
      String kind;

      @Option(
          names = "--pre-policy",
          description =
              "with -k in: the routes as received, before the import policy "
                  + "(needs soft reconfiguration inbound)")
      boolean prePolicy;

      @Option(
          names = {"-a", "--afi"},
          defaultValue = "ipv4")
      String afi;

      @Option(
          names = {"-s", "--safi"},
          defaultValue = "unicast")
      String safi;

      @Override
      public Integer call() {
        Ctx c = new Ctx(spec);
        GetNeighborPathRequest.Kind k =
            switch (kind.toLowerCase(Locale.ROOT)) {
              case "in" -> GetNeighborPathRequest.Kind.IN;
              case "out" -> GetNeighborPathRequest.Kind.OUT;
              default -> throw new IllegalArgumentException("kind is in or out: " + kind);
            };
        printPaths(
            c,
            c.call(
                    s ->
                        s.getNeighborPath(
                            GetNeighborPathRequest.newBuilder()
                                .setKind(k)
                                .setAddr(addr)
                                .setFamily(family(afi, safi))
                                .setPrePolicy(prePolicy)
                                .build()))
                .getPathsList());
        return 0;
      }
    }
  }
}
