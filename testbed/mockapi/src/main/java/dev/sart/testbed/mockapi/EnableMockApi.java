package dev.sart.testbed.mockapi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class {@link MockApi}'s server: its fields of type {@code KubernetesClient} (a
 * client of that server) and {@code KubernetesMockServer} are set. Static fields get one server for
 * the whole class (started before the first test, destroyed after the last); instance fields get a
 * fresh server for each test. In place of fabric8's {@code @EnableKubernetesMockClient(crud =
 * true)}, whose server has the watch defect {@link MockWatchDispatcher} works around.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(MockApiExtension.class)
public @interface EnableMockApi {
  /** Whether sart's CRDs are applied before the first test ({@link MockApi#withSartCrds}). */
  boolean crds() default false;
}
