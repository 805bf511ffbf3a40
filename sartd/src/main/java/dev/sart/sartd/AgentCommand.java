package dev.sart.sartd;

import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sartd agent}: the node agent. So far its CNI side only (the socket sart-cni talks to,
 * pod networking, IPAM over the blocks of the configuration file); see kube-agent/README.md.
 */
@Command(name = "agent", mixinStandardHelpOptions = true,
    description = "Run the node agent (CNI server and pod networking; the Kubernetes reconcilers are not in it yet)")
final class AgentCommand implements Callable<Integer> {
  @Option(names = {"-f", "--config"}, required = true, description = "the agent's JSON configuration (kube-agent/README.md)")
  Path config;

  @Option(names = "--cni-endpoint", description = "the UNIX socket for sart-cni (overrides the file's \"socket\")")
  Path cniEndpoint;

  @Override
  public Integer call() throws Exception {
    AgentConfig c = AgentConfig.read(config);
    if (cniEndpoint != null) {
      c = new AgentConfig(cniEndpoint, c.hostNetns(), c.nodeAddress4(), c.nodeAddress6(), c.mtu(), c.routeTable(),
          c.rulePriority(), c.blocks(), c.defaultPool(), c.enableForwarding(), c.grpcAddress());
    }
    CniAgent agent = CniAgent.start(c);
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        agent.close();
      } catch (Exception e) {
        e.printStackTrace();
      }
      stop.countDown();
    }));
    stop.await();
    return 0;
  }
}
