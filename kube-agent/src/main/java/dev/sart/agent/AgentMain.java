package dev.sart.agent;

import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the agent's CNI side until it is stopped: {@code AgentMain --config FILE} (the JSON of
 * {@link AgentConfig#read}). The Kubernetes reconcilers come later; {@code sartd agent} will start
 * the same {@link CniAgent}.
 */
public final class AgentMain {
  private AgentMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !args[0].equals("--config")) {
      System.err.println("usage: AgentMain --config FILE");
      System.exit(2);
    }
    CniAgent agent = CniAgent.start(AgentConfig.read(Path.of(args[1])));
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    agent.close();
                  } catch (Exception e) {
                    e.printStackTrace();
                  }
                  stop.countDown();
                }));
    System.out.println("ready");
    System.out.flush();
    stop.await();
  }
}
