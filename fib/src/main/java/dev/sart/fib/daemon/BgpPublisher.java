package dev.sart.fib.daemon;

import com.google.protobuf.Any;
import dev.sart.fib.netlink.Family;
import dev.sart.net.IpPrefix;
import dev.sart.proto.v1.AddPathRequest;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.DeletePathRequest;
import dev.sart.proto.v1.OriginAttribute;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A speaker as a sink: the channel's destinations are originated there with {@code BgpApi.AddPath}
 * (origin IGP) and withdrawn with {@code DeletePath}. Changes coalesce per destination while the
 * speaker is slow or away; a worker sends them in batches and retries with back-off, so the
 * channel's thread never waits for the speaker.
 */
final class BgpPublisher implements Publisher {
  private static final Logger LOG = Logger.getLogger(BgpPublisher.class.getName());
  private static final int PER_CALL = 1000;

  private final String channel;
  private final String endpoint;
  private final BgpApiGrpc.BgpApiBlockingStub stub;
  private final Counter errors;

  /** Destination → whether it should be originated; what the worker has not sent yet. */
  private final Map<IpPrefix, Boolean> pending = new LinkedHashMap<>();

  /** What the speaker should originate now (guarded by {@code pending}). */
  private final java.util.Set<IpPrefix> wanted = new java.util.HashSet<>();

  private final Thread worker;
  private final Thread liveness;
  private final io.grpc.Context.CancellableContext livenessCall =
      io.grpc.Context.current().withCancellation();
  private volatile boolean running = true;

  BgpPublisher(String channel, String endpoint, ManagedChannel speaker, FibMetrics metrics) {
    this.channel = channel;
    this.endpoint = endpoint;
    this.stub = BgpApiGrpc.newBlockingStub(speaker);
    this.errors = metrics.publishErrors(channel, endpoint);
    this.worker = Thread.ofVirtual().name("fib-publish-" + endpoint).start(this::run);
    this.liveness =
        Thread.ofVirtual()
            .name("fib-publish-watch-" + endpoint)
            .start(() -> livenessCall.run(this::follow));
  }

  /**
   * A restarted speaker has forgotten what we originated there: the peer-state watch is followed
   * only to notice each (re)connection, after which everything wanted is sent again.
   */
  private void follow() {
    Duration backoff = BgpWatchSubscriber.MIN_BACKOFF;
    while (running) {
      try {
        java.util.Iterator<dev.sart.proto.v1.PeerStateEvent> it =
            stub.watchPeerState(dev.sart.proto.v1.WatchPeerStateRequest.getDefaultInstance());
        stub.withDeadlineAfter(10, TimeUnit.SECONDS)
            .health(dev.sart.proto.v1.HealthRequest.getDefaultInstance());
        int n;
        synchronized (pending) {
          wanted.forEach(p -> pending.putIfAbsent(p, true));
          n = wanted.size();
          pending.notifyAll();
        }
        LOG.info(
            () ->
                "event=speaker-connected channel="
                    + channel
                    + " endpoint="
                    + endpoint
                    + " originating="
                    + n);
        backoff = BgpWatchSubscriber.MIN_BACKOFF;
        while (it.hasNext()) {
          it.next();
        }
      } catch (StatusRuntimeException e) {
        // the speaker is away: the worker's calls fail and are retried; here we wait for it to come
        // back
      }
      try {
        Thread.sleep(backoff.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      backoff =
          backoff.multipliedBy(2).compareTo(BgpWatchSubscriber.MAX_BACKOFF) > 0
              ? BgpWatchSubscriber.MAX_BACKOFF
              : backoff.multipliedBy(2);
    }
  }

  @Override
  public void reconcile(Map<IpPrefix, ChannelRoute> selected) {
    synchronized (pending) {
      wanted.forEach(
          p -> {
            if (!selected.containsKey(p)) {
              pending.put(p, false);
            }
          });
      wanted.clear();
      wanted.addAll(selected.keySet());
      selected.keySet().forEach(p -> pending.put(p, true));
      pending.notifyAll();
    }
  }

  @Override
  public void apply(List<ChannelRib.Change> changes) {
    synchronized (pending) {
      for (ChannelRib.Change c : changes) {
        pending.put(c.destination(), c.selected() != null);
        if (c.selected() != null) {
          wanted.add(c.destination());
        } else {
          wanted.remove(c.destination());
        }
      }
      pending.notifyAll();
    }
  }

  private void run() {
    Duration backoff = BgpWatchSubscriber.MIN_BACKOFF;
    while (running) {
      Map<IpPrefix, Boolean> work;
      synchronized (pending) {
        while (running && pending.isEmpty()) {
          try {
            pending.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        work = new LinkedHashMap<>(pending);
        pending.clear();
      }
      try {
        send(work);
        LOG.fine(
            () ->
                "event=published channel="
                    + channel
                    + " endpoint="
                    + endpoint
                    + " changes="
                    + work.size());
        backoff = BgpWatchSubscriber.MIN_BACKOFF;
      } catch (StatusRuntimeException e) {
        errors.increment();
        LOG.info(
            () ->
                "event=publish-failed channel="
                    + channel
                    + " endpoint="
                    + endpoint
                    + " status="
                    + e.getStatus().getCode()
                    + " pending="
                    + work.size());
        synchronized (pending) {
          work.forEach(pending::putIfAbsent); // newer changes win
        }
        try {
          Thread.sleep(backoff.toMillis());
        } catch (InterruptedException ie) {
          return;
        }
        backoff =
            backoff.multipliedBy(2).compareTo(BgpWatchSubscriber.MAX_BACKOFF) > 0
                ? BgpWatchSubscriber.MAX_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  private void send(Map<IpPrefix, Boolean> work) {
    Map<Family, List<String>> add = new HashMap<>();
    Map<Family, List<String>> delete = new HashMap<>();
    work.forEach(
        (p, originate) ->
            (originate ? add : delete)
                .computeIfAbsent(Family.of(p), f -> new ArrayList<>())
                .add(p.toString()));
    Any origin = Any.pack(OriginAttribute.newBuilder().setValue(0).build());
    for (Map.Entry<Family, List<String>> e : delete.entrySet()) {
      for (List<String> part : parts(e.getValue())) {
        stub.withDeadlineAfter(30, TimeUnit.SECONDS)
            .deletePath(
                DeletePathRequest.newBuilder()
                    .setFamily(family(e.getKey()))
                    .addAllPrefixes(part)
                    .build());
      }
    }
    for (Map.Entry<Family, List<String>> e : add.entrySet()) {
      for (List<String> part : parts(e.getValue())) {
        stub.withDeadlineAfter(30, TimeUnit.SECONDS)
            .addPath(
                AddPathRequest.newBuilder()
                    .setFamily(family(e.getKey()))
                    .addAllPrefixes(part)
                    .addAttributes(origin)
                    .build());
      }
    }
  }

  private static List<List<String>> parts(List<String> all) {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i += PER_CALL) {
      out.add(all.subList(i, Math.min(all.size(), i + PER_CALL)));
    }
    return out;
  }

  private static AddressFamily family(Family f) {
    return AddressFamily.newBuilder()
        .setAfi(f == Family.INET ? AddressFamily.Afi.AFI_IP4 : AddressFamily.Afi.AFI_IP6)
        .setSafi(AddressFamily.Safi.SAFI_UNICAST)
        .build();
  }

  @Override
  public void close() {
    running = false;
    livenessCall.cancel(null);
    worker.interrupt();
    liveness.interrupt();
  }
}
