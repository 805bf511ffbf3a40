package dev.sart.cli;

import dev.sart.crds.AddressPool;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code sart explain}: why an address is or is not announced, link by link, from the API server
 * and the node speakers' APIs. Changes nothing. Exit code 0 when every link holds, 3 when one is
 * broken, 2 when the API server cannot be reached.
 */
@Command(
    name = "explain",
    description = "Why a Service's, an address's or a pod's address is (not) announced")
final class ExplainCommands {
  @ParentCommand Sart root;

  @Option(
      names = "--kubeconfig",
      scope = picocli.CommandLine.ScopeType.INHERIT,
      description = "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
  Path kubeconfig;

  @Option(
      names = "--speaker",
      scope = picocli.CommandLine.ScopeType.INHERIT,
      description =
          "NODE=HOST:PORT: ask this endpoint for NODE's speaker instead of its NodeBGP's"
              + " speaker.path (e.g. through kubectl port-forward); repeatable")
  Map<String, String> speakers = new LinkedHashMap<>();

  @Option(
      names = "--fib",
      scope = picocli.CommandLine.ScopeType.INHERIT,
      description =
          "NODE=HOST:PORT: ask this endpoint for NODE's FIB (explain pod: the kernel's routes)"
              + " instead of the speaker's host on port 5001; repeatable")
  Map<String, String> fibs = new LinkedHashMap<>();

  @Option(
      names = "--lb-class",
      scope = picocli.CommandLine.ScopeType.INHERIT,
      defaultValue = dev.sart.crds.Sart.LOAD_BALANCER_CLASS,
      description = "the loadBalancerClass sartd controller serves (default: ${DEFAULT-VALUE})")
  String lbClass;

  static final int BROKEN = 3;

  KubernetesClient client() {
    Config config;
    try {
      config =
          kubeconfig == null
              ? Config.autoConfigure(null)
              : Config.fromKubeconfig(Files.readString(kubeconfig));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalArgumentException("no kubeconfig file " + kubeconfig);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read kubeconfig " + kubeconfig + ": " + e.getMessage());
    }
    // a CLI answers or fails at once: no retries with back-off (fabric8's default: 10)
    config.setRequestRetryBackoffLimit(0);
    config.setConnectionTimeout(5_000);
    config.setRequestTimeout(15_000);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  interface Body {
    Link explain(KubernetesClient client, Speakers speakers, Fibs fibs);
  }

  int run(picocli.CommandLine.Model.CommandSpec spec, Body body) {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    try (KubernetesClient client = client();
        Speakers sp = new Speakers(speakers);
        Fibs fb = new Fibs(fibs)) {
      Link chain;
      try {
        chain = body.explain(client, sp, fb);
      } catch (KubernetesClientException e) {
        err.println(apiError(client.getMasterUrl().toString(), e));
        err.flush();
        return 2;
      }
      if (root.output == Output.Format.plain) {
        Link.print(out, chain);
      } else {
        Output.structured(out, root.output, Link.document(chain));
      }
      return chain.firstBroken() == null ? 0 : BROKEN;
    }
  }

  /** One line for a failed API server request, no stack trace. */
  static String apiError(String url, KubernetesClientException e) {
    if (e.getCode() <= 0) {
      return "error: cannot reach the Kubernetes API at "
          + url
          + "; check the kubeconfig or --kubeconfig";
    }
    String message = e.getStatus() == null ? null : e.getStatus().getMessage();
    return "error: the Kubernetes API at "
        + url
        + " answered "
        + e.getCode()
        + (message == null ? "" : ": " + message)
        + (e.getCode() == 403
            ? " (explain needs to get/list the sart resources, Services,"
                + " EndpointSlices, Pods and Events)"
            : "");
  }

  static String[] namespaced(String text) {
    int slash = text.indexOf('/');
    return slash < 0
        ? new String[] {"default", text}
        : new String[] {text.substring(0, slash), text.substring(slash + 1)};
  }

  @Command(name = "service", description = "Explain a LoadBalancer Service: NAMESPACE/NAME")
  static final class ServiceCmd implements Callable<Integer> {
    @ParentCommand ExplainCommands parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "NAMESPACE/NAME")
    String service;

    @Override
    public Integer call() {
      String[] nn = namespaced(service);
      return parent.run(
          spec, (c, sp, fb) -> new ServiceChain(c, sp, parent.lbClass).explain(nn[0], nn[1], null));
    }
  }

  @Command(name = "address", description = "Explain an address: the Service or pod that holds it")
  static final class AddressCmd implements Callable<Integer> {
    @ParentCommand ExplainCommands parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "IP")
    String ip;

    @Override
    public Integer call() {
      String canonical;
      try {
        canonical = Ip.format(Ip.parse(ip));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("not an IP address: " + ip);
      }
      return parent.run(spec, (c, sp, fb) -> address(c, sp, fb, canonical, parent.lbClass));
    }
  }

  @Command(name = "pod", description = "Explain a pod's address: NAMESPACE/NAME")
  static final class PodCmd implements Callable<Integer> {
    @ParentCommand ExplainCommands parent;
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "NAMESPACE/NAME")
    String pod;

    @Override
    public Integer call() {
      String[] nn = namespaced(pod);
      return parent.run(spec, (c, sp, fb) -> new PodChain(c, sp, fb).explain(nn[0], nn[1], null));
    }
  }

  /** The Service holding the address, else the pod, else which pool (if any) it lies in. */
  static Link address(KubernetesClient c, Speakers sp, Fibs fb, String ip, String lbClass) {
    for (Service s : c.services().inAnyNamespace().list().getItems()) {
      if (ServiceChain.ingress(s).contains(ip)) {
        return new ServiceChain(c, sp, lbClass)
            .explain(s.getMetadata().getNamespace(), s.getMetadata().getName(), ip);
      }
    }
    for (Pod p : c.pods().inAnyNamespace().list().getItems()) {
      if (p.getStatus() != null
          && p.getStatus().getPodIPs() != null
          && p.getStatus().getPodIPs().stream().anyMatch(x -> ip.equals(x.getIp()))) {
        return new PodChain(c, sp, fb)
            .explain(p.getMetadata().getNamespace(), p.getMetadata().getName(), ip);
      }
    }
    List<AddressPool> pools = c.resources(AddressPool.class).list().getItems();
    var pool = ServiceChain.poolOf(pools, ip);
    if (pool.isEmpty()) {
      return Link.broken(
          "address",
          ip,
          "no Service or pod holds it and no AddressPool contains it",
          "it is not sart's: create an AddressPool holding it, or check the address");
    }
    return Link.broken(
        "address",
        ip,
        "in "
            + pool.get().getSpec().type().name().toLowerCase(java.util.Locale.ROOT)
            + " pool "
            + pool.get().getMetadata().getName()
            + " ("
            + pool.get().getSpec().cidr()
            + "), but no Service or pod holds it",
        "request it with "
            + dev.sart.crds.Sart.LOAD_BALANCER_IPS_ANNOTATION
            + " on a LoadBalancer Service, then explain that Service");
  }
}
