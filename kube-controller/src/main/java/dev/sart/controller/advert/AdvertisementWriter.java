package dev.sart.controller.advert;

import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Writes;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import java.util.logging.Logger;

/**
 * The advertisement reconciler's API writes, sent off its thread through {@link Writes} (up to 8 at
 * once, one at a time per advertisement, a write not yet started replaced by a newer one): a burst
 * of Services gets its advertisements at the API server's pace, not one create and one status round
 * trip after another on one thread.
 *
 * <p>A peer map is decided again against the object it is written to: the reconciler passes a
 * function of the object's current entries, and the map goes out with the object's {@code
 * resourceVersion} (RFC 6902 {@code replace} of {@code /metadata/resourceVersion}, which the API
 * server treats as a precondition), so an agent's concurrent write makes the server answer 409
 * Conflict and the map is computed again on the object read back. While a write is under way the
 * reconciler leaves that advertisement alone ({@link #busy}); once it is done, and until the
 * informer delivers what it produced, the reconciler works on the object the server answered
 * ({@link #newest}) rather than on its older cached copy, so it never waits for the informer: a
 * watch event always follows the write it reports, so until it comes the answer is the newest
 * version known here, and a copy that is not the newest only costs a 409 and a read.
 */
final class AdvertisementWriter implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AdvertisementWriter.class.getName());

  /** Conflicts in a row before the write gives up (the reconciler looks again after a backoff). */
  static final int ATTEMPTS = 8;

  /**
   * How long a write's answer is kept while the informer has not delivered it (then the cache is
   * trusted again: a re-listed informer may never deliver that version itself).
   */
  static final Duration SETTLE = Duration.ofSeconds(10);

  /** A write's work; returns the object as the server last answered it, or null when none. */
  @FunctionalInterface
  interface Job {
    BGPAdvertisement run();
  }

  private record Written(BGPAdvertisement object, long at) {
    String resourceVersion() {
      return object.getMetadata().getResourceVersion();
    }
  }

  private final KubernetesClient client;
  private final Writes writes = new Writes("bgpadvertisement", 8);

  /** Looks at a Service again after a failed write: its key and the delay. */
  private final BiConsumer<String, Duration> retry;

  private final Map<String, Integer> failures = new ConcurrentHashMap<>();

  // guarded by this
  private final Map<String, Written> written = new HashMap<>();
  private final Map<String, Set<String>> seenWhileWriting = new HashMap<>();

  /** Per advertisement, the resourceVersion the informer delivered last. */
  private final Map<String, String> lastSeen = new HashMap<>();

  AdvertisementWriter(KubernetesClient client, BiConsumer<String, Duration> retry) {
    this.client = client;
    this.retry = retry;
  }

  static String key(BGPAdvertisement advert) {
    return advert.getMetadata().getNamespace() + "/" + advert.getMetadata().getName();
  }

  static Map<String, AdvertiseStatus> peers(BGPAdvertisement advert) {
    var status = advert.getStatus();
    return status == null || status.peers() == null ? Map.of() : new TreeMap<>(status.peers());
  }

  /** Whether the advertisement {@code key} has a write waiting or under way. */
  boolean busy(String key) {
    return writes.pending(key);
  }

  /**
   * The newest version of the advertisement {@code key} known here: the server's answer to our last
   * write while the informer has not delivered it (for at most {@link #SETTLE}), else {@code
   * cached} (null: none).
   */
  synchronized BGPAdvertisement newest(String key, BGPAdvertisement cached) {
    var w = written.get(key);
    if (w == null) {
      return cached;
    }
    if (System.nanoTime() - w.at() > SETTLE.toNanos()) {
      written.remove(key);
      LOG.info(
          "advertisement write result unseen name="
              + key
              + " resourceVersion="
              + w.resourceVersion()
              + " lastSeen="
              + lastSeen.get(key));
      return cached;
    }
    return w.object();
  }

  /**
   * The informer delivered {@code advert} (added, updated, or deleted when {@code gone}).
   *
   * @return whether this was the result of a write the reconciler waited for (look again now)
   */
  synchronized boolean seen(BGPAdvertisement advert, boolean gone) {
    var key = key(advert);
    var rv = advert.getMetadata().getResourceVersion();
    if (gone) {
      lastSeen.remove(key);
    } else {
      lastSeen.put(key, rv);
    }
    var during = seenWhileWriting.get(key);
    if (during != null) {
      during.add(rv);
    }
    var w = written.get(key);
    if (w != null && (gone || w.resourceVersion().equals(rv))) {
      written.remove(key);
      return true;
    }
    return false;
  }

  /**
   * Creates {@code advert}, then writes its first peer map ({@code peers} of no entries); an empty
   * one only when {@code writeEmpty} (no peer can carry it: {@code {}} says "decided, no peer", and
   * the Service's condition says why), else the first map waits for a target (an endpoint).
   */
  void create(
      String service,
      BGPAdvertisement advert,
      UnaryOperator<Map<String, AdvertiseStatus>> peers,
      boolean writeEmpty) {
    submit(
        service,
        key(advert),
        () -> {
          BGPAdvertisement created;
          try {
            created = client.resource(advert).create();
            LOG.info(
                "advertisement created name="
                    + advert.getMetadata().getName()
                    + " namespace="
                    + advert.getMetadata().getNamespace()
                    + " cidr="
                    + advert.getSpec().cidr());
          } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
              throw e;
            }
            created =
                client
                    .resources(BGPAdvertisement.class)
                    .inNamespace(advert.getMetadata().getNamespace())
                    .withName(advert.getMetadata().getName())
                    .get();
            if (created == null) {
              throw e;
            }
          }
          return writePeers(created, peers, writeEmpty && created.getStatus() == null).object();
        });
  }

  /** Writes the peer map {@code change} makes of the advertisement's current entries. */
  void setPeers(
      String service, BGPAdvertisement advert, UnaryOperator<Map<String, AdvertiseStatus>> change) {
    submit(service, key(advert), () -> writePeers(advert, change, false).object());
  }

  /**
   * Takes the advertisement back: every entry {@code withdrawn} (the agents withdraw and remove
   * their entries); once nothing is left to change, deletes it, and once deleted and no entry is
   * left, removes the finalizer.
   */
  void withdrawAndDelete(
      String service,
      BGPAdvertisement advert,
      UnaryOperator<Map<String, AdvertiseStatus>> withdrawn) {
    submit(
        service,
        key(advert),
        () -> {
          var result = writePeers(advert, withdrawn, false);
          if (result.object() == null || result.changed()) {
            return result.object(); // the agents answer; back through the informer
          }
          var current = result.object();
          var resource =
              client
                  .resources(BGPAdvertisement.class)
                  .inNamespace(current.getMetadata().getNamespace())
                  .withName(current.getMetadata().getName());
          if (current.getMetadata().getDeletionTimestamp() == null) {
            resource.delete();
            return null;
          }
          var finalizers = current.getMetadata().getFinalizers();
          if (peers(current).isEmpty()
              && finalizers != null
              && finalizers.contains(Sart.BGP_ADVERTISEMENT_FINALIZER)) {
            var released =
                LockedEdit.edit(
                    client,
                    resource,
                    a -> {
                      a.getMetadata().getFinalizers().remove(Sart.BGP_ADVERTISEMENT_FINALIZER);
                      return a;
                    });
            if (released != null) { // null: gone already (a second pass on a stale cache)
              LOG.info(
                  "advertisement withdrawn and released name=" + current.getMetadata().getName());
            }
            return released;
          }
          return null;
        });
  }

  private record Result(BGPAdvertisement object, boolean changed) {}

  /**
   * Writes {@code change(peers)} with the object's resourceVersion; on 409 Conflict reads the
   * object back and decides again.
   */
  private Result writePeers(
      BGPAdvertisement base, UnaryOperator<Map<String, AdvertiseStatus>> change, boolean always) {
    for (int attempt = 1; ; attempt++) {
      var current = peers(base);
      var next = change.apply(current);
      if (next.equals(current) && !always) {
        return new Result(base, false);
      }
      // the whole map (an "add" of /status replaces it, RFC 6902 §4.1): a merge patch cannot
      // remove an entry on fabric8's mock server, which keeps the nulls
      var patch =
          Serialization.asJson(
              List.of(
                  Map.of(
                      "op",
                      "replace",
                      "path",
                      "/metadata/resourceVersion",
                      "value",
                      base.getMetadata().getResourceVersion()),
                  Map.of(
                      "op", "add", "path", "/status", "value", new BGPAdvertisementStatus(next))));
      try {
        // resource(base), not withName(...): a patch by name first GETs the object
        return new Result(
            client
                .resource(base)
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON), patch),
            true);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
        base =
            client
                .resources(BGPAdvertisement.class)
                .inNamespace(base.getMetadata().getNamespace())
                .withName(base.getMetadata().getName())
                .get();
        if (base == null) {
          return new Result(null, false);
        }
      }
    }
  }

  private void submit(String service, String key, Job job) {
    writes.submit(
        key,
        () -> {
          synchronized (this) {
            seenWhileWriting.put(key, new HashSet<>());
          }
          BGPAdvertisement result = null;
          boolean failed = false;
          try {
            result = job.run();
            failures.remove(key);
          } catch (RuntimeException e) {
            if (!(e instanceof KubernetesClientException k && k.getCode() == 404)) {
              int attempt = failures.merge(key, 1, Integer::sum);
              var delay = Loop.backoff(attempt);
              LOG.info(
                  "advertisement write failed name="
                      + key
                      + " attempt="
                      + attempt
                      + " retryMs="
                      + delay.toMillis()
                      + " error="
                      + e.getMessage());
              retry.accept(service, delay);
              failed = true;
            }
          } finally {
            synchronized (this) {
              var during = seenWhileWriting.remove(key);
              var rv = result == null ? null : result.getMetadata().getResourceVersion();
              // an answer the informer already delivered (during the write, or before it when the
              // write found nothing to change on the object read back) is not waited for
              if (rv != null
                  && (during == null || !during.contains(rv))
                  && !rv.equals(lastSeen.get(key))) {
                written.put(key, new Written(result, System.nanoTime()));
              } else {
                written.remove(key);
              }
            }
            // the reconciler skipped this advertisement meanwhile: it looks again now, on the
            // answer (newest) until the informer delivers it
            if (!failed) {
              retry.accept(service, Duration.ZERO);
            }
          }
        });
  }

  /** Advertisements with a write waiting or under way. */
  int pending() {
    return writes.pending();
  }

  @Override
  public void close() {
    writes.close();
  }
}
