package dev.sart.controller.egress;

import dev.sart.crds.Egress;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
 * <p>Removed by this class, not by garbage collection: a cluster-scoped ClusterRoleBinding cannot
 * be owned by a namespaced Egress, and several Egresses share the namespaced objects. The
 * ClusterRoleBinding is made first and deleted last, and carries {@link #NAMESPACE_LABEL}, so that
 * {@link #sweep} at start-up finds what a controller stopped half-way left behind. Used from the
 * egress loop's one thread only.
 */
final class EgressAccess {
  private static final Logger LOG = Logger.getLogger(EgressAccess.class.getName());

  /** The ServiceAccount, the RoleBinding and the namespaced ClusterRole. */
  static final String NAME = "sart-egress";

  /** The ClusterRole with the cluster-wide pod reads. */
  static final String PODS_ROLE = "sart-egress-pods";

  /** On each object: the namespace it is for. */
  static final String NAMESPACE_LABEL = "egress.sart.terassyi.net/access";

  private static final String RBAC = "rbac.authorization.k8s.io";

  private final KubernetesClient client;

  /** The namespaces whose objects this process made (or found made). */
  private final Set<String> made = new HashSet<>();

  EgressAccess(KubernetesClient client) {
    this.client = client;
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

  /**
   * Makes or removes the namespace's objects as its Egresses ({@code all}, any namespace) need
   * them.
   */
  void reconcile(String namespace, Collection<Egress> all) {
    if (wanted(namespace, all)) {
      if (!made.contains(namespace)) {
        create(namespace);
        made.add(namespace);
      }
    } else if (made.remove(namespace)) {
      delete(namespace);
    }
  }

  /** At start-up: removes the objects of namespaces with no Egress that needs them any more. */
  void sweep(Collection<Egress> all) {
    var found = new TreeSet<String>();
    for (var b : client.rbac().clusterRoleBindings().withLabel(NAMESPACE_LABEL).list().getItems()) {
      found.add(b.getMetadata().getLabels().get(NAMESPACE_LABEL));
    }
    for (var namespace : found) {
      if (wanted(namespace, all)) {
        made.add(namespace);
      } else {
        delete(namespace);
      }
    }
  }

  private void create(String namespace) {
    var labels = Map.of(NAMESPACE_LABEL, namespace);
    create(
        () ->
            client
                .rbac()
                .clusterRoleBindings()
                .resource(
                    new ClusterRoleBindingBuilder()
                        .withMetadata(
                            new ObjectMetaBuilder()
                                .withName(clusterBinding(namespace))
                                .withLabels(labels)
                                .build())
                        .withNewRoleRef(RBAC, "ClusterRole", PODS_ROLE)
                        .addNewSubject(null, "ServiceAccount", NAME, namespace)
                        .build())
                .create());
    create(
        () ->
            client
                .rbac()
                .roleBindings()
                .inNamespace(namespace)
                .resource(
                    new RoleBindingBuilder()
                        .withMetadata(
                            new ObjectMetaBuilder()
                                .withNamespace(namespace)
                                .withName(NAME)
                                .withLabels(labels)
                                .build())
                        .withNewRoleRef(RBAC, "ClusterRole", NAME)
                        .addNewSubject(null, "ServiceAccount", NAME, namespace)
                        .build())
                .create());
    create(
        () ->
            client
                .serviceAccounts()
                .inNamespace(namespace)
                .resource(
                    new ServiceAccountBuilder()
                        .withMetadata(
                            new ObjectMetaBuilder()
                                .withNamespace(namespace)
                                .withName(NAME)
                                .withLabels(labels)
                                .build())
                        .build())
                .create());
    LOG.info("egress access granted namespace=" + namespace + " serviceAccount=" + NAME);
  }

  private static void create(Runnable request) {
    try {
      request.run();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }

  private void delete(String namespace) {
    client.serviceAccounts().inNamespace(namespace).withName(NAME).delete();
    client.rbac().roleBindings().inNamespace(namespace).withName(NAME).delete();
    client.rbac().clusterRoleBindings().withName(clusterBinding(namespace)).delete();
    LOG.info("egress access removed namespace=" + namespace);
  }
}
