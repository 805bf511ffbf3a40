package dev.sart.agent.bgp;

import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.BGPPeerStatus;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPPeer;
import dev.sart.crds.Sart;
import dev.sart.proto.v1.Peer;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * BGPPeer (sart.md §6.5): every BGPPeer of this node is a peer of the speaker with the BGPPeer's
 * timers (sart ignored them), groups, the session options of {@link PeerOptions} and the agent's
 * export policy for it ({@link ExportPolicies}, defined before the peer is added); a spec change
 * re-creates the session; a deleted BGPPeer (finalizer) leaves the speaker, the NodeBGP's peer list
 * and every BGPAdvertisement's status. The session state goes into {@code status.conditions} as the
 * speaker's stream reports it; leaving Established counts one {@code backoff}.
 */
final class PeerReconciler {
  private static final Logger LOG = Logger.getLogger(PeerReconciler.class.getName());
  static final int MAX_CONDITIONS = 10;
  static final String REASON_WATCH = "WatchPeerState";
  static final String REASON_SPEAKER_DOWN = "SpeakerDown";

  private final KubernetesClient client;

  /**
   * What was sent to the speaker per peer address, with the password: the speaker never reports it
   * back.
   */
  private final Map<String, Peer> applied = new HashMap<>();

  private final EndpointSliceTrigger trigger;

  PeerReconciler(KubernetesClient client) {
    this.client = client;
    this.trigger = new EndpointSliceTrigger(client);
  }

  /** Forgets what the speaker was given: after a restart everything is sent again. */
  void forget() {
    applied.clear();
  }

  /** Applies the peers of this node; returns the addresses the speaker should have. */
  void reconcile(NodeBGP nb, List<BGPPeer> peers, Speaker speaker, PeerWatch watch) {
    Set<String> wanted = new HashSet<>();
    for (BGPPeer cached : peers) {
      BGPPeer p = cached;
      String name = p.getMetadata().getName();
      if (p.getMetadata().getDeletionTimestamp() == null
          && !p.getMetadata().getFinalizers().contains(Sart.BGP_PEER_FINALIZER)) {
        // Nothing of a BGPPeer is set up before it holds the finalizer: only then does its deletion
        // come back here to be undone. One deleted before that (the cache still shows it) would
        // otherwise stay listed in the NodeBGP, and createListed would bring it back.
        p =
            LockedEdit.holdFinalizer(
                client, client.resources(BGPPeer.class).withName(name), Sart.BGP_PEER_FINALIZER);
        if (p == null) {
          LOG.fine(() -> "event=peer-gone-before-held peer=" + name);
          continue;
        }
      }
      if (p.getMetadata().getDeletionTimestamp() != null) {
        delete(nb, p, speaker);
        continue;
      }
      Peer desired;
      try {
        desired = desired(p);
      } catch (IllegalArgumentException | IllegalStateException e) {
        // bad input: said in the BGPPeer's status; the other peers go on
        LOG.warning(() -> "event=peer-invalid peer=" + name + " reason=\"" + e.getMessage() + "\"");
        status(p, Peer.State.UNKNOWN, "InvalidConfiguration: " + e.getMessage());
        if (applied.containsKey(p.getSpec().neighbor())) {
          wanted.add(p.getSpec().neighbor());
        }
        continue;
      }
      String addr = key(desired);
      wanted.add(addr);
      Peer was = applied.get(addr);
      if (was == null) {
        if (!speaker.addPeer(desired)) {
          // the speaker has it (the agent restarted, the speaker did not): taken as it is
          LOG.fine(() -> "event=peer-adopted peer=" + name + " address=" + addr);
        } else {
          LOG.info(
              () ->
                  "event=peer-added peer="
                      + name
                      + " address="
                      + addr
                      + " asn="
                      + desired.getAsn()
                      + " holdTime="
                      + desired.getHoldTime()
                      + " keepaliveTime="
                      + desired.getKeepaliveTime());
        }
        applied.put(addr, desired);
      } else if (!was.equals(desired)) {
        // its session restarts: Cease / Other Configuration Change, graceful with RFC 8538
        speaker.updatePeer(desired);
        watch.forget(addr);
        applied.put(addr, desired);
        LOG.info(() -> "event=peer-updated peer=" + name + " address=" + addr);
      }
      listed(nb, p);
      Peer.State reported = watch.state(addr);
      if (reported != null) {
        status(p, reported, REASON_WATCH);
      }
    }
    // peers the speaker has but no BGPPeer wants (deleted while the agent was away)
    for (Peer n : speaker.neighbors()) {
      String key = key(n);
      Peer mine = applied.get(key);
      if (wanted.contains(key)
          && mine != null
          && !mine.getExportPolicy().equals(n.getExportPolicy())) {
        // adopted from a speaker that had it without the agent's export policy (or with another
        // one)
        speaker.setExportPolicy(n, mine.getExportPolicy());
        LOG.info(
            () ->
                "event=peer-export-policy address="
                    + n.getAddress()
                    + " policy="
                    + mine.getExportPolicy());
      }
      if (!wanted.contains(key)) {
        speaker.deletePeer(key);
        applied.remove(key);
        watch.forget(key);
        LOG.info(() -> "event=peer-removed address=" + key + " reason=no-bgppeer");
      }
    }
  }

  /**
   * sart: a peer listed in the NodeBGP's {@code spec.peers} (by ClusterBGP) with no BGPPeer gets
   * one, labelled with the node. Checked again on the API server's current objects: the caches may
   * not have seen a deletion that removed the entry yet.
   */
  void createListed(NodeBGP nb, List<BGPPeer> peers) {
    if (nb.getSpec().peers() == null) {
      return;
    }
    Set<String> have = new HashSet<>();
    peers.forEach(p -> have.add(p.getMetadata().getName()));
    for (NodeBGPPeer listed : nb.getSpec().peers()) {
      if (have.contains(listed.name())) {
        continue;
      }
      NodeBGP now = client.resources(NodeBGP.class).withName(nb.getMetadata().getName()).get();
      boolean stillListed =
          now != null
              && now.getSpec().peers() != null
              && now.getSpec().peers().stream().anyMatch(x -> x.name().equals(listed.name()));
      if (!stillListed || client.resources(BGPPeer.class).withName(listed.name()).get() != null) {
        continue;
      }
      BGPPeer p = new BGPPeer(listed.name(), listed.spec());
      p.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, nb.getMetadata().getName()));
      client.resource(p).create();
      LOG.info(() -> "event=bgppeer-created peer=" + listed.name() + " from=nodebgp");
    }
  }

  /**
   * The speaker is gone (restarted or unreachable): every peer is Idle until the stream says
   * otherwise.
   */
  void speakerDown(List<BGPPeer> peers) {
    for (BGPPeer p : peers) {
      if (p.getMetadata().getDeletionTimestamp() == null) {
        status(p, Peer.State.IDLE, REASON_SPEAKER_DOWN);
      }
    }
  }

  private void delete(NodeBGP nb, BGPPeer p, Speaker speaker) {
    String name = p.getMetadata().getName();
    String addr = p.getSpec().neighbor();
    speaker.deletePeer(addr);
    applied.remove(addr);
    if (nb.getSpec().peers() != null
        && nb.getSpec().peers().stream().anyMatch(x -> x.name().equals(name))) {
      LockedEdit.edit(
          client,
          client.resources(NodeBGP.class).withName(nb.getMetadata().getName()),
          cur -> {
            List<NodeBGPPeer> ps =
                new ArrayList<>(cur.getSpec().peers() == null ? List.of() : cur.getSpec().peers());
            ps.removeIf(x -> x.name().equals(name));
            cur.setSpec(
                new dev.sart.crds.NodeBGPSpec(
                    cur.getSpec().asn(), cur.getSpec().routerId(), cur.getSpec().speaker(), ps));
            return cur;
          });
    }
    for (BGPAdvertisement a :
        client.resources(BGPAdvertisement.class).inAnyNamespace().list().getItems()) {
      if (a.getStatus() != null
          && a.getStatus().peers() != null
          && a.getStatus().peers().containsKey(name)) {
        client
            .resources(BGPAdvertisement.class)
            .inNamespace(a.getMetadata().getNamespace())
            .withName(a.getMetadata().getName())
            .editStatus(
                cur -> {
                  Map<String, dev.sart.crds.AdvertiseStatus> m =
                      new LinkedHashMap<>(cur.getStatus().peers());
                  m.remove(name);
                  cur.setStatus(new BGPAdvertisementStatus(m));
                  return cur;
                });
      }
    }
    LockedEdit.edit(
        client,
        client.resources(BGPPeer.class).withName(name),
        cur -> {
          cur.getMetadata().getFinalizers().remove(Sart.BGP_PEER_FINALIZER);
          return cur;
        });
    LOG.info(() -> "event=peer-deleted peer=" + name + " address=" + addr);
  }

  /** sart keeps the NodeBGP's {@code spec.peers} in step with the BGPPeers of the node. */
  private void listed(NodeBGP nb, BGPPeer p) {
    String name = p.getMetadata().getName();
    List<NodeBGPPeer> ps = nb.getSpec().peers();
    if (ps != null && ps.stream().anyMatch(x -> x.name().equals(name))) {
      return;
    }
    LockedEdit.edit(
        client,
        client.resources(NodeBGP.class).withName(nb.getMetadata().getName()),
        cur -> {
          List<NodeBGPPeer> l =
              new ArrayList<>(cur.getSpec().peers() == null ? List.of() : cur.getSpec().peers());
          if (l.stream().anyMatch(x -> x.name().equals(name))) {
            return cur;
          }
          l.add(new NodeBGPPeer(name, p.getSpec()));
          cur.setSpec(
              new dev.sart.crds.NodeBGPSpec(
                  cur.getSpec().asn(), cur.getSpec().routerId(), cur.getSpec().speaker(), l));
          return cur;
        });
  }

  /**
   * Appends the state when it differs from the newest condition; leaving Established counts a
   * back-off.
   */
  private void status(BGPPeer p, Peer.State state, String reason) {
    BGPPeerCondition.Status want = status(state);
    BGPPeerCondition cached = last(p.getStatus());
    if (cached != null && cached.status() == want && cached.reason().equals(reason)) {
      return;
    }
    client
        .resources(BGPPeer.class)
        .withName(p.getMetadata().getName())
        .editStatus(
            cur -> {
              BGPPeerStatus s = cur.getStatus();
              BGPPeerCondition last = last(s);
              if (last != null && last.status() == want && last.reason().equals(reason)) {
                return cur;
              }
              List<BGPPeerCondition> conds =
                  new ArrayList<>(s == null || s.conditions() == null ? List.of() : s.conditions());
              conds.add(new BGPPeerCondition(want, reason));
              while (conds.size() > MAX_CONDITIONS) {
                conds.removeFirst();
              }
              long backoff = s == null || s.backoff() == null ? 0 : s.backoff();
              if (last != null && last.status() == BGPPeerCondition.Status.Established) {
                backoff++;
              }
              cur.setStatus(new BGPPeerStatus(backoff, conds));
              return cur;
            });
    LOG.info(
        () ->
            "event=peer-state peer="
                + p.getMetadata().getName()
                + " state="
                + want
                + " reason="
                + reason);
    if (want == BGPPeerCondition.Status.Established
        && (cached == null || cached.status() != BGPPeerCondition.Status.Established)) {
      // sart's endpointslice.sart.terassyi.net/triggered-by
      trigger.established(p.getMetadata().getName());
    }
  }

  static BGPPeerCondition last(BGPPeerStatus s) {
    return s == null || s.conditions() == null || s.conditions().isEmpty()
        ? null
        : s.conditions().getLast();
  }

  static BGPPeerCondition.Status status(Peer.State s) {
    return switch (s) {
      case IDLE -> BGPPeerCondition.Status.Idle;
      case CONNECT -> BGPPeerCondition.Status.Connect;
      case ACTIVE -> BGPPeerCondition.Status.Active;
      case OPEN_SENT -> BGPPeerCondition.Status.OpenSent;
      case OPEN_CONFIRM -> BGPPeerCondition.Status.OpenConfirm;
      case ESTABLISHED -> BGPPeerCondition.Status.Established;
      case UNKNOWN, UNRECOGNIZED -> BGPPeerCondition.Status.Unknown;
    };
  }

  /**
   * The speaker's key of a neighbour: the interface of an unnumbered one (its address is learned,
   * and may change), the address of any other; what DeletePeer takes.
   */
  static String key(Peer p) {
    return p.getInterface().isEmpty() ? p.getAddress() : p.getInterface();
  }

  /** The AddPeer request for a BGPPeer: sart's fields plus our timers and session options. */
  Peer desired(BGPPeer p) {
    BGPPeerSpec s = p.getSpec();
    PeerOptions o = PeerOptions.of(p);
    Peer.Builder b =
        Peer.newBuilder()
            .setName(p.getMetadata().getName())
            .setAsn((int) (long) s.asn())
            .setMultihopTtl(o.multihopTtl())
            .setTtlSecurity(o.ttlSecurity())
            .setConnectRetryTime(o.connectRetryTime())
            // the prefixes of the adverts that target this peer, and no other of the agent's
            // (ExportPolicies)
            .setExportPolicy(ExportPolicies.name(p.getMetadata().getName()));
    if (s.interfaceName() != null) {
      // unnumbered (RFC 8950 fabrics): the speaker learns the neighbour's link-local address on
      // the interface; IPv4 goes over the IPv6 session with IPv6 next hops, IPv6 as usual
      b.setInterface(s.interfaceName())
          .addFamilies(Speaker.family("0.0.0.0/0"))
          .addFamilies(Speaker.family("::/0"));
    } else {
      b.setAddress(s.addr())
          .addFamilies(Speaker.family(s.addr().contains(":") ? "::/0" : "0.0.0.0/0"));
    }
    if (s.holdTime() != null) {
      b.setHoldTime((int) (long) s.holdTime());
    }
    if (s.keepaliveTime() != null) {
      b.setKeepaliveTime((int) (long) s.keepaliveTime());
    }
    if (o.passwordSecret() != null) {
      b.setPassword(password(o));
    }
    // additions of the CRD; 0 is the speaker's default for each (BgpApiService.peerConfig)
    if (s.bfd() != null) {
      b.setBfd(
          dev.sart.proto.v1.Bfd.newBuilder()
              .setMinTx(s.bfd().minTx() == null ? 0 : (int) (long) s.bfd().minTx())
              .setMinRx(s.bfd().minRx() == null ? 0 : (int) (long) s.bfd().minRx())
              .setMultiplier(s.bfd().multiplier() == null ? 0 : (int) (long) s.bfd().multiplier()));
    }
    if (s.gracefulRestart() != null) {
      b.setGracefulRestart(
          dev.sart.proto.v1.GracefulRestart.newBuilder()
              .setHelperDisabled(Boolean.FALSE.equals(s.gracefulRestart().helper()))
              .setRestartTime(
                  s.gracefulRestart().restartTime() == null
                      ? 0
                      : (int) (long) s.gracefulRestart().restartTime())
              .setNotification(Boolean.TRUE.equals(s.gracefulRestart().notification())));
    }
    return b.build();
  }

  private String password(PeerOptions o) {
    Secret secret =
        client
            .secrets()
            .inNamespace(o.passwordSecret().namespace())
            .withName(o.passwordSecret().name())
            .get();
    if (secret == null) {
      throw new IllegalStateException("password Secret " + o.passwordSecret() + " does not exist");
    }
    String key = o.passwordSecret().key();
    if (secret.getData() != null && secret.getData().containsKey(key)) {
      return new String(
          Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
    }
    if (secret.getStringData() != null && secret.getStringData().containsKey(key)) {
      return secret.getStringData().get(key);
    }
    throw new IllegalStateException("password Secret " + o.passwordSecret() + " has no key " + key);
  }
}
