package dev.sart.controller.egress;

import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Loop;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.Egress;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * What the egress pods of a namespace run as: while the namespace has an Egress whose template
 * names no ServiceAccount, the ServiceAccount {@code sart-egress}, a RoleBinding {@code
 * sart-egress} to the ClusterRole {@code sart-egress} (its Egresses and Services read, its own pods
 * read and patched, namespaced) and a ClusterRoleBinding {@code sart-egress-<namespace>} to the
 * ClusterRole {@code sart-egress-pods} (pods list and watch in every namespace: the client pods
 * that opt in by annotation live anywhere, and an annotation cannot be selected on). Both roles are
 * in {@code manifests/egress-rbac.yaml}.
 *
 * <p>A work queue of its own, keyed by namespace ({@link Loop} "egress-access"): the Egresses' own
 * reconcile never waits for these requests, and a failure here is retried here. Each pass reads the
 * three objects first (GET) and writes only what is missing or differs (a binding with another role
 * or subject is made again: {@code roleRef} cannot be changed). The controller lists or watches
 * none of these kinds cluster-wide: three GETs per pass of a namespace with Egresses.
 *
 * <p>Removed by this class, not by garbage collection: a cluster-scoped ClusterRoleBinding cannot
 * be owned by a namespaced Egress, and several Egresses share the namespaced objects. Only objects
 * carrying {@link #NAMESPACE_LABEL} are removed (a ServiceAccount {@code sart-egress} the user made
 * stays). The ClusterRoleBinding is made first and removed last, so that {@link #start} finds, by
 * that label, the namespaces a controller stopped half-way left objects in.
 */
final class EgressAccess implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EgressAccess.class.getName());

  /** The ServiceAccount, the RoleBinding and the namespaced ClusterRole. */
  static final String NAME = "sart-egress";

  /** The ClusterRole with the cluster-wide pod reads. */
  static final String PODS_ROLE = "sart-egress-pods";

  /** On each object: the namespace it is for. */
  static final String NAMESPACE_LABEL = "egress.sart.terassyi.net/access";

  private static final String RBAC = "rbac.authorization.k8s.io";

  private final Informers informers;
  private final KubernetesClient client;
  private final Loop loop;

  EgressAccess(Informers informers, Metrics metrics) {
    this.informers = informers;
    this.client = informers.client();
    this.loop = new Loop("egress-access", this::reconcile, metrics);
  }

  static String clusterBinding(String namespace) {
    return NAME + "-" + namespace;
  }

  /** Whether the Egress's pods run as {@link #NAME}: its template names no ServiceAccount. */
  static boolean usesDefault(Egress egress) {
    var template = egress.getSpec() == null ? null : egress.getSpec().template();
    var spec = template == null ? null : template.spec();
    return spec == null || (blank(spec.getServiceAccountName()) && blank(spec.getServiceAccount()));
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static boolean wanted(String namespace, Collection<Egress> egresses) {
    return egresses.stream()
        .anyMatch(
            e ->
                namespace.equals(e.getMetadata().getNamespace())
                    && e.getSpec() != null
                    && e.getMetadata().getDeletionTimestamp() == null
                    && usesDefault(e));
  }

  /** Looks at the Egress's namespace again (an Egress was added, changed or deleted). */
  void changed(Egress egress) {
    loop.enqueue(egress.getMetadata().getNamespace());
  }

  /**
   * Starts the queue with every namespace that has an Egress or still has objects of this class
   * (found by label: what a controller stopped between an Egress's deletion and their removal
   * left).
   */
  void start() {
    for (var b : client.rbac().clusterRoleBindings().withLabel(NAMESPACE_LABEL).list().getItems()) {
      loop.enqueue(b.getMetadata().getLabels().get(NAMESPACE_LABEL));
    }
    informers.list(Egress.class).forEach(this::changed);
    loop.start();
  }

  private Duration reconcile(String namespace) {
    if (wanted(namespace, informers.list(Egress.class))) {
      grant(namespace);
    } else {
      revoke(namespace);
    }
    return null;
  }

  private void grant(String namespace) {
    var labels = Map.of(NAMESPACE_LABEL, namespace);
    var subject = new Subject(null, "ServiceAccount", NAME, namespace);
    boolean wrote =
        ensure(
            client.rbac().clusterRoleBindings().withName(clusterBinding(namespace)),
            () ->
                new ClusterRoleBindingBuilder()
                    .withMetadata(
                        new ObjectMetaBuilder()
                            .withName(clusterBinding(namespace))
                            .withLabels(labels)
                            .build())
                    .withRoleRef(new RoleRef(RBAC, "ClusterRole", PODS_ROLE))
                    .withSubjects(subject)
                    .build(),
            (ClusterRoleBinding have, ClusterRoleBinding want) ->
                same(have.getRoleRef(), want.getRoleRef())
                    && same(have.getSubjects(), want.getSubjects()));
    wrote |=
        ensure(
            client.rbac().roleBindings().inNamespace(namespace).withName(NAME),
            () ->
                new RoleBindingBuilder()
                    .withMetadata(
                        new ObjectMetaBuilder()
                            .withNamespace(namespace)
                            .withName(NAME)
                            .withLabels(labels)
                            .build())
                    .withRoleRef(new RoleRef(RBAC, "ClusterRole", NAME))
                    .withSubjects(subject)
                    .build(),
            (RoleBinding have, RoleBinding want) ->
                same(have.getRoleRef(), want.getRoleRef())
                    && same(have.getSubjects(), want.getSubjects()));
    // any ServiceAccount of that name serves (the user's own included): only its existence counts
    wrote |=
        ensure(
            client.serviceAccounts().inNamespace(namespace).withName(NAME),
            () ->
                new ServiceAccountBuilder()
                    .withMetadata(
                        new ObjectMetaBuilder()
                            .withNamespace(namespace)
                            .withName(NAME)
                            .withLabels(labels)
                            .build())
                    .build(),
            (ServiceAccount have, ServiceAccount want) -> true);
    if (wrote) {
      LOG.info("egress access granted namespace=" + namespace + " serviceAccount=" + NAME);
    }
  }

  private static boolean same(RoleRef a, RoleRef b) {
    return a != null
        && Objects.equals(a.getApiGroup(), b.getApiGroup())
        && Objects.equals(a.getKind(), b.getKind())
        && Objects.equals(a.getName(), b.getName());
  }

  /** Same kinds, names and namespaces (the API server may fill in or drop an empty apiGroup). */
  private static boolean same(List<Subject> a, List<Subject> b) {
    if (a == null || a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      var x = a.get(i);
      var y = b.get(i);
      if (!Objects.equals(x.getKind(), y.getKind())
          || !Objects.equals(x.getName(), y.getName())
          || !Objects.equals(x.getNamespace(), y.getNamespace())) {
        return false;
      }
    }
    return true;
  }

  private interface Same<T> {
    boolean test(T have, T want);
  }

  /**
   * Reads the object; creates it when missing, makes it again when it differs. Whether it wrote.
   */
  private <T extends HasMetadata> boolean ensure(
      Resource<T> resource, Supplier<T> desired, Same<T> same) {
    var want = desired.get();
    var have = resource.get();
    if (have != null && same.test(have, want)) {
      return false;
    }
    if (have != null) {
      // a binding's roleRef cannot be changed: delete, then create
      resource.delete();
    }
    try {
      client.resource(want).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // made meanwhile (or not yet gone): looked at again on the next pass
      throw new IllegalStateException(
          want.getKind() + " " + want.getMetadata().getName() + " still exists", e);
    }
    return true;
  }

  private void revoke(String namespace) {
    boolean removed =
        deleteOurs(client.serviceAccounts().inNamespace(namespace).withName(NAME), namespace);
    removed |=
        deleteOurs(client.rbac().roleBindings().inNamespace(namespace).withName(NAME), namespace);
    removed |=
        deleteOurs(
            client.rbac().clusterRoleBindings().withName(clusterBinding(namespace)), namespace);
    if (removed) {
      LOG.info("egress access removed namespace=" + namespace);
    }
  }

  /** Deletes the object if it exists and this class made it (its label). Whether it deleted. */
  private static boolean deleteOurs(Resource<? extends HasMetadata> resource, String namespace) {
    var have = resource.get();
    if (have == null) {
      return false;
    }
    var labels = have.getMetadata().getLabels();
    if (labels == null || !namespace.equals(labels.get(NAMESPACE_LABEL))) {
      return false;
    }
    resource.delete();
    return true;
  }

  @Override
  public void close() {
    loop.close();
  }
}
