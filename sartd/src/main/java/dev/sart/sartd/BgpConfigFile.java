package dev.sart.sartd;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The {@code sartd bgp -f FILE} YAML, with sart's keys ({@code asn}, {@code router_id}, {@code
 * multi_path}, {@code neighbors}, {@code paths}, {@code fib_endpoint}, {@code fib_table}, {@code
 * exporter}) plus {@code metrics_address}, per-neighbour timers, password, multihop and TTL
 * security, and routing policy: {@code prefix_lists}, {@code policies}, and per neighbour {@code
 * import_policy}, {@code export_policy}, {@code max_prefix*}, {@code soft_reconfiguration_inbound},
 * {@code advertise_peer_as}.
 */
record BgpConfigFile(
    Long asn,
    @JsonProperty("router_id") String routerId,
    @JsonProperty("multi_path") Boolean multiPath,
    @JsonProperty("fib_endpoint") String fibEndpoint,
    @JsonProperty("fib_table") Integer fibTable,
    String exporter,
    @JsonProperty("metrics_address") String metricsAddress,
    List<Neighbor> neighbors,
    List<Paths> paths,
    @JsonProperty("prefix_lists") Map<String, List<String>> prefixLists,
    List<PolicyDef> policies,
    @JsonProperty("graceful_restart") RestartDef gracefulRestart,
    @JsonProperty("cluster_id") String clusterId) {

  /**
   * The speaker's own graceful restart (RFC 4724 §4.1, an addition): {@code enabled} (default false
   * for sartd bgp, true for sartd node), {@code forwarding_state} (default true: the Forwarding
   * State bit of every family, the kernel routes being kept across a restart), {@code
   * selection_deferral_time} (seconds, 0..3600, default 60: the longest a restart waits for the
   * peers' End-of-RIB and the local paths).
   */
  record RestartDef(
      Boolean enabled,
      @JsonProperty("forwarding_state") Boolean forwardingState,
      @JsonProperty("selection_deferral_time") Integer selectionDeferralTime) {}

  record Neighbor(
      String name,
      Long asn,
      String address,
      @JsonProperty("router_id") String routerId,
      Boolean passive,
      @JsonProperty("hold_time") Integer holdTime,
      @JsonProperty("keepalive_time") Integer keepaliveTime,
      @JsonProperty("connect_retry_time") Integer connectRetryTime,
      String password,
      @JsonProperty("multihop_ttl") Integer multihopTtl,
      @JsonProperty("ttl_security") Boolean ttlSecurity,
      @JsonProperty("local_address") String localAddress,
      Integer port,
      List<String> families,
      @JsonProperty("import_policy") String importPolicy,
      @JsonProperty("export_policy") String exportPolicy,
      @JsonProperty("max_prefix") Long maxPrefix,
      @JsonProperty("max_prefix_restart") Integer maxPrefixRestart,
      @JsonProperty("max_prefix_warning_only") Boolean maxPrefixWarningOnly,
      @JsonProperty("soft_reconfiguration_inbound") Boolean softReconfigurationInbound,
      @JsonProperty("advertise_peer_as") Boolean advertisePeerAs,
      @JsonProperty("graceful_restart") GracefulRestartDef gracefulRestart,
      BfdDef bfd,
      @JsonProperty("add_path") AddPathDef addPath,
      @JsonProperty("route_reflector_client") Boolean routeReflectorClient,
      @JsonProperty("next_hop_self") Boolean nextHopSelf,
      @JsonProperty("interface") String interfaceName,
      @JsonProperty("remote_as") String remoteAs) {}

  /**
   * ADD-PATH (RFC 7911) per neighbour: the families ({@code ipv4}, {@code ipv6}) in which we offer
   * to {@code receive} and to {@code send} several paths per prefix, and {@code send_max}, how many
   * we send (the best N the export rules let through; absent or 0: all).
   */
  record AddPathDef(
      List<String> receive, List<String> send, @JsonProperty("send_max") Integer sendMax) {}

  /**
   * Single-hop BFD (RFC 5880, RFC 5881) per neighbour, in milliseconds: {@code min_tx}, {@code
   * min_rx} (default 300 each) and {@code multiplier} (default 3); absent: no BFD.
   */
  record BfdDef(
      @JsonProperty("min_tx") Integer minTx,
      @JsonProperty("min_rx") Integer minRx,
      Integer multiplier) {}

  /**
   * RFC 4724 per neighbour: {@code helper} (default true) keeps its routes stale while it restarts;
   * {@code restart_time} (seconds, 0..4095, default 120) is the one we advertise; {@code
   * notification} (default false) sends RFC 8538's N bit.
   */
  record GracefulRestartDef(
      Boolean helper, @JsonProperty("restart_time") Integer restartTime, Boolean notification) {}

  /** A named policy: statements in order, then the default ("accept" or "reject"). */
  record PolicyDef(
      String name, @JsonProperty("default") String defaultAction, List<StatementDef> statements) {}

  /**
   * {@code match} conditions (all must hold), {@code action} accept/reject, {@code set} changes.
   */
  record StatementDef(MatchDef match, String action, SetDef set) {}

  /**
   * @param prefixList the name of an entry of {@code prefix_lists}
   * @param prefixes entries written in place ("[permit|deny] PREFIX [ge N] [le N]")
   */
  record MatchDef(
      @JsonProperty("prefix_list") String prefixList,
      List<String> prefixes,
      List<String> communities,
      @JsonProperty("large_communities") List<String> largeCommunities) {}

  /**
   * {@code communities} replaces the route's, {@code add_communities} adds to them; the same for
   * large ones.
   */
  record SetDef(
      @JsonProperty("local_pref") Long localPref,
      Long med,
      List<String> communities,
      @JsonProperty("add_communities") List<String> addCommunities,
      @JsonProperty("large_communities") List<String> largeCommunities,
      @JsonProperty("add_large_communities") List<String> addLargeCommunities,
      Integer prepend,
      @JsonProperty("prepend_as") Long prependAs) {}

  record Paths(List<String> prefixes, Map<String, String> attributes) {}

  /** Reads and checks {@code file}; a mistake is a {@link ConfigException} (file:line: what). */
  static BgpConfigFile load(Path file) {
    ConfigFile<BgpConfigFile> f = ConfigFile.readLenient(file, BgpConfigFile.class);
    f.check(BgpCommand::check);
    return f.value();
  }
}
