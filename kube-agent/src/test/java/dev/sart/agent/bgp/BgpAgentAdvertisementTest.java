package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * BGPAdvertisements to one peer: announced, withdrawn and deleted, with the controller's finalizer.
 */
class BgpAgentAdvertisementTest extends BgpAgentFixture {
  @Test
  void anAdvertisementIsAnnouncedToAnEstablishedPeerAndWithdrawn() throws Exception {
    start();
    ControllerObjects.advert(
        client,
        "default",
        "svc-203.0.113.10",
        "203.0.113.10/32",
        Map.of(
            PEER,
            AdvertiseStatus.NotAdvertised,
            "node2-65002-192.0.2.9",
            AdvertiseStatus.NotAdvertised));
    awaitEstablished();
    bird.awaitRoute("203.0.113.10/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc-203.0.113.10").get(PEER) == AdvertiseStatus.Advertised);
    assertEquals(
        AdvertiseStatus.NotAdvertised,
        advertStatus("svc-203.0.113.10").get("node2-65002-192.0.2.9"),
        "another node's peer is that node's agent's business");

    client
        .resources(BGPAdvertisement.class)
        .inNamespace("default")
        .withName("svc-203.0.113.10")
        .editStatus(
            a -> {
              a.getStatus().peers().put(PEER, AdvertiseStatus.Withdraw);
              return a;
            });
    bird.awaitNoRoute("203.0.113.10/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !advertStatus("svc-203.0.113.10").containsKey(PEER));
  }

  @Test
  void deletingAnAdvertisementWithdrawsThePrefix() throws Exception {
    start();
    awaitEstablished();
    ControllerObjects.advert(
        client,
        "default",
        "pod-block",
        "198.51.100.0/29",
        Map.of(PEER, AdvertiseStatus.NotAdvertised));
    bird.awaitRoute("198.51.100.0/29");
    client.resources(BGPAdvertisement.class).inNamespace("default").withName("pod-block").delete();
    bird.awaitNoRoute("198.51.100.0/29");
  }

  /**
   * A target peer whose session is down keeps the prefix in the speaker: its entry says
   * NotAdvertised, and the session that comes back gets the prefix with its first UPDATEs, before
   * its End-of-RIB. The prefix was withdrawn from the speaker while no target peer was Established,
   * so a ToR that kept the path, stale, across a graceful restart or a changed BGPPeer (RFC 4724
   * §4.2, RFC 8538) dropped it at the End-of-RIB and took it again a pass later.
   */
  @Test
  void aPrefixStaysWithTheSpeakerWhileItsPeerIsDownAndGoesOutWhenItIsBack() throws Exception {
    start();
    awaitEstablished();
    ControllerObjects.advert(
        client,
        "default",
        "svc-kept",
        "203.0.113.12/32",
        Map.of(PEER, AdvertiseStatus.NotAdvertised));
    bird.awaitRoute("203.0.113.12/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc-kept").get(PEER) == AdvertiseStatus.Advertised);
    bird.stop();
    // the pass that writes NotAdvertised has dealt with the speaker first
    await("the entry follows the session down")
        .atMost(Duration.ofSeconds(60))
        .until(() -> advertStatus("svc-kept").get(PEER) == AdvertiseStatus.NotAdvertised);
    try (Speaker api = new Speaker(speaker.endpoint(), Duration.ofSeconds(10))) {
      assertEquals(List.of("203.0.113.12/32"), api.localPrefixes(), "the speaker's own paths");
    }
    bird.start();
    bird.awaitRoute("203.0.113.12/32");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> advertStatus("svc-kept").get(PEER) == AdvertiseStatus.Advertised);
  }

  /** An advert as the controller makes it: with its finalizer, which waits for the agents. */
  private static void heldAdvert(String name, String cidr) {
    ControllerObjects.advert(
        client, "default", name, cidr, Map.of(PEER, AdvertiseStatus.NotAdvertised));
    setFinalizers(name, List.of(Sart.BGP_ADVERTISEMENT_FINALIZER));
  }

  /**
   * As the controller writes them: with the resourceVersion, again after a 409 (the agent's status
   * write may come between the read and the write).
   */
  private static void setFinalizers(String name, List<String> finalizers) {
    LockedEdit.edit(
        client,
        client.resources(BGPAdvertisement.class).inNamespace("default").withName(name),
        a -> {
          a.getMetadata().setFinalizers(finalizers);
          return a;
        });
  }

  private static void delete(String name) {
    client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).delete();
  }

  /** The controller's side: the finalizer goes once the agents left no entry; then it is gone. */
  private static void awaitReleasedAndGone(String name) {
    await(name + " has no entry left")
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus(name).isEmpty());
    setFinalizers(name, List.of());
    await(name + " gone")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).get()
                    == null);
  }

  /**
   * Issue 19: a BGPAdvertisement being deleted (the controller's finalizer holds it) is withdrawn
   * by the agent, whose entries then leave the status, whether the agent sees it first after the
   * deletion, while it is announced, or while the controller's Withdraw races with the deletion.
   */
  @Test
  void aDeletedAdvertisementIsWithdrawnAndLeftToTheControllerBeforeDuringAndAfter()
      throws Exception {
    start();
    awaitEstablished();

    // deleted before the agent ever announced it: never announced, its entry removed
    heldAdvert("early", "203.0.113.20/32");
    delete("early");
    assertNoRouteFor(bird, "203.0.113.20/32");
    awaitReleasedAndGone("early");

    // deleted while announced, the controller not having written Withdraw yet
    heldAdvert("announced", "203.0.113.21/32");
    bird.awaitRoute("203.0.113.21/32");
    delete("announced");
    bird.awaitNoRoute("203.0.113.21/32");
    awaitReleasedAndGone("announced");

    // the controller's Withdraw right after the deletion, racing with the agent's own removal
    heldAdvert("racing", "203.0.113.22/32");
    bird.awaitRoute("203.0.113.22/32");
    delete("racing");
    try {
      setTargets("racing", Map.of(PEER, AdvertiseStatus.Withdraw));
    } catch (RuntimeException alreadyRemoved) {
      // the agent was first
    }
    bird.awaitNoRoute("203.0.113.22/32");
    awaitReleasedAndGone("racing");

    // after: gone for good, nothing comes back
    assertNoRouteFor(bird, "203.0.113.21/32");
  }
}
