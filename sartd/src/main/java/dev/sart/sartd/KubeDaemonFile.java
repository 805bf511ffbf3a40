package dev.sart.sartd;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/**
 * The {@code sartd agent -f FILE} and {@code sartd controller -f FILE} YAML, with sart's keys
 * (sart.md §4.2: its agent's and controller's {@code Config}): {@code http_port}, {@code
 * https_port}, {@code endpoint}, {@code tls: {cert, key}}, {@code requeue_interval} (seconds),
 * {@code mode}, and the agent's {@code peer_state_watcher} and {@code cni_endpoint}. Every key is
 * optional here (sart required them all); a flag given on the command line wins over the file.
 */
record KubeDaemonFile(
    @JsonProperty("http_port") Integer httpPort,
    @JsonProperty("https_port") Integer httpsPort,
    String endpoint,
    Tls tls,
    @JsonProperty("requeue_interval") Long requeueInterval,
    @JsonProperty("peer_state_watcher") String peerStateWatcher,
    String mode,
    @JsonProperty("cni_endpoint") String cniEndpoint) {

  record Tls(String cert, String key) {}

  /** Checks what the parser cannot; a message starts with the key it concerns. */
  KubeDaemonFile check() {
    port("http_port", httpPort);
    port("https_port", httpsPort);
    if (requeueInterval != null && requeueInterval <= 0) {
      throw new IllegalArgumentException(
          "requeue_interval: " + requeueInterval + " is not a number of seconds > 0");
    }
    if (mode != null) {
      try {
        mode(mode);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("mode: " + e.getMessage());
      }
    }
    return this;
  }

  private static void port(String key, Integer p) {
    if (p != null && (p < 0 || p > 65535)) {
      throw new IllegalArgumentException(key + ": " + p + " is not a port (0..65535)");
    }
  }

  /** The running modes of sart's agent and controller. */
  enum Mode {
    LB,
    CNI,
    DUAL;

    /** Whether pods get addresses (the CNI side). */
    boolean cni() {
      return this != LB;
    }

    /** Whether Services get addresses (the load-balancer side). */
    boolean lb() {
      return this != CNI;
    }
  }

  /**
   * {@code lb}, {@code cni} or {@code dual}, as sart's flag takes them; also {@code LB}, {@code
   * CNI} and {@code Dual}, the names sart's config file holds (serde's variant names).
   */
  static Mode mode(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "lb" -> Mode.LB;
      case "cni" -> Mode.CNI;
      case "dual" -> Mode.DUAL;
      default -> throw new IllegalArgumentException("'" + s + "' is not a mode: lb, cni or dual");
    };
  }
}
