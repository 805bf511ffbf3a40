package dev.sart.controller.lb;

import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * sart's EndpointSlice annotations, written as sart's Service watcher writes them, for tools that
 * read them (sart.md §6.2): on every EndpointSlice of a LoadBalancer Service we serve, {@code
 * service.sart.terassyi.net/etp} = its {@code spec.externalTrafficPolicy} and {@code
 * service.sart.terassyi.net/allocation} = its addresses from {@code status.loadBalancer.ingress},
 * comma-separated (absent while it has none). sart used them only to wake its own EndpointSlice
 * watcher; nothing here reads them. Unlike sart, both go again when the Service stops being one of
 * ours (sart left them stale).
 */
public final class EndpointSliceAnnotations implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EndpointSliceAnnotations.class.getName());
  private static final String BY_SERVICE = "sartAnnotationsByService";

  private final Informers informers;
  private final ServiceViews views;
  private final Loop loop;

  public EndpointSliceAnnotations(Informers informers, String loadBalancerClass, Metrics metrics) {
    this.informers = informers;
    this.views = new ServiceViews(loadBalancerClass);
    this.loop = new Loop("endpointslice-annotations", this::reconcile, metrics);
    Function<HasMetadata, List<String>> byService =
        o -> {
          var labels = o.getMetadata().getLabels();
          var name = labels == null ? null : labels.get(Sart.SERVICE_NAME_LABEL);
          return name == null ? List.of() : List.of(o.getMetadata().getNamespace() + "/" + name);
        };
    informers.of(EndpointSlice.class).addIndexers(Map.of(BY_SERVICE, byService::apply));
    informers.watch(Service.class, s -> loop.enqueue(ServiceViews.key(s)));
    informers.watch(EndpointSlice.class, s -> byService.apply(s).forEach(loop::enqueue));
  }

  public void start() {
    loop.start();
    for (var slice : informers.list(EndpointSlice.class)) {
      var labels = slice.getMetadata().getLabels();
      if (labels != null && labels.containsKey(Sart.SERVICE_NAME_LABEL)) {
        loop.enqueue(
            slice.getMetadata().getNamespace() + "/" + labels.get(Sart.SERVICE_NAME_LABEL));
      }
    }
  }

  /** The two annotations a Service's slices carry (a null value: absent). */
  static Map<String, String> wanted(Service service, ServiceViews views) {
    var out = new LinkedHashMap<String, String>();
    out.put(Sart.SERVICE_ETP_ANNOTATION, null);
    out.put(Sart.SERVICE_ALLOCATION_ANNOTATION, null);
    if (service == null || !views.wanted(service)) {
      return out;
    }
    out.put(Sart.SERVICE_ETP_ANNOTATION, service.getSpec().getExternalTrafficPolicy());
    var addresses = ServiceViews.current(service);
    if (!addresses.isEmpty()) {
      out.put(
          Sart.SERVICE_ALLOCATION_ANNOTATION,
          addresses.stream().map(Ip::format).collect(Collectors.joining(",")));
    }
    return out;
  }

  private Duration reconcile(String key) {
    var wanted = wanted(informers.get(Service.class, key), views);
    for (var slice : informers.of(EndpointSlice.class).getIndexer().byIndex(BY_SERVICE, key)) {
      var have = slice.getMetadata().getAnnotations();
      var ops = new ArrayList<String>();
      boolean hasMap = have != null;
      for (var e : wanted.entrySet()) {
        String current = have == null ? null : have.get(e.getKey());
        if (Objects.equals(current, e.getValue())) {
          continue;
        }
        if (e.getValue() == null) {
          ops.add(
              "{\"op\":\"remove\",\"path\":\"/metadata/annotations/" + pointer(e.getKey()) + "\"}");
        } else if (!hasMap) {
          ops.add(
              "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{"
                  + Serialization.asJson(e.getKey())
                  + ":"
                  + Serialization.asJson(e.getValue())
                  + "}}");
          hasMap = true;
        } else {
          ops.add(
              "{\"op\":\"add\",\"path\":\"/metadata/annotations/"
                  + pointer(e.getKey())
                  + "\",\"value\":"
                  + Serialization.asJson(e.getValue())
                  + "}");
        }
      }
      if (ops.isEmpty()) {
        continue;
      }
      try {
        informers
            .client()
            .resource(slice)
            .patch(PatchContext.of(PatchType.JSON), "[" + String.join(",", ops) + "]");
        LOG.fine(
            () -> "endpointslice annotated name=" + slice.getMetadata().getName() + " " + wanted);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        // gone meanwhile: nothing to annotate
      }
    }
    return null;
  }

  /** RFC 6901: {@code ~} and {@code /} escaped in a JSON Pointer token. */
  private static String pointer(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  /** Keys waiting (for tests). */
  public int pending() {
    return loop.pending();
  }

  @Override
  public void close() {
    loop.close();
  }
}
