package dev.sart.testbed.mockapi;

import io.fabric8.kubernetes.client.Client;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/** The extension behind {@link EnableMockApi}. */
final class MockApiExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(MockApiExtension.class);

  /** A server and its client, closed together. */
  private record Running(KubernetesMockServer server, NamespacedKubernetesClient client) {
    void close() {
      client.close();
      server.destroy();
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IllegalAccessException {
    start(context, null, true);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IllegalAccessException {
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      start(context, instance, false);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    stop(context, false);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    stop(context, true);
  }

  /** Starts a server if the class (or {@code instance}) has fields of this kind to set. */
  private static void start(ExtensionContext context, Object instance, boolean statics)
      throws IllegalAccessException {
    Class<?> type = instance != null ? instance.getClass() : context.getRequiredTestClass();
    List<Field> fields = fields(type, statics);
    if (fields.isEmpty()) {
      return;
    }
    boolean crds =
        AnnotationSupport.findAnnotation(type, EnableMockApi.class)
            .map(EnableMockApi::crds)
            .orElse(false);
    var server = crds ? MockApi.withSartCrds() : MockApi.start();
    var running = new Running(server, server.createClient());
    context.getStore(NS).put(statics, running);
    for (Field f : fields) {
      Object value =
          KubernetesMockServer.class.isAssignableFrom(f.getType())
              ? server
              : f.getType().isInstance(running.client())
                  ? running.client()
                  : running.client().adapt(f.getType().asSubclass(Client.class));
      f.setAccessible(true);
      f.set(statics ? null : instance, value);
    }
  }

  private static void stop(ExtensionContext context, boolean statics) {
    var running = context.getStore(NS).remove(statics, Running.class);
    if (running != null) {
      running.close();
    }
  }

  /** The fields of {@code type} and its superclasses that this extension sets. */
  private static List<Field> fields(Class<?> type, boolean statics) {
    var found = new ArrayList<Field>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        boolean settable =
            Client.class.isAssignableFrom(f.getType())
                || KubernetesMockServer.class.isAssignableFrom(f.getType());
        if (settable && Modifier.isStatic(f.getModifiers()) == statics) {
          found.add(f);
        }
      }
    }
    return found;
  }
}
