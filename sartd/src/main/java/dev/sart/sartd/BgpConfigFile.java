package dev.sart.sartd;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The {@code sartd bgp -f FILE} YAML, with sart's keys ({@code asn}, {@code router_id},
 * {@code multi_path}, {@code neighbors}, {@code paths}, {@code fib_endpoint}, {@code fib_table},
 * {@code exporter}) plus per-neighbour timers, password, multihop and TTL security, and
 * {@code metrics_address}.
 */
record BgpConfigFile(
    Long asn,
    @JsonProperty("router_id") String routerId,
    @JsonProperty("multi_path") Boolean multiPath,
    @JsonProperty("fib_endpoint") String fibEndpoint,
    @JsonProperty("fib_table") Integer fibTable,
    String exporter,
    @JsonProperty("metrics_address") String metricsAddress,
    List<Neighbor> neighbors,
    List<Paths> paths) {

  record Neighbor(
      String name,
      Long asn,
      String address,
      @JsonProperty("router_id") String routerId,
      Boolean passive,
      @JsonProperty("hold_time") Integer holdTime,
      @JsonProperty("keepalive_time") Integer keepaliveTime,
      @JsonProperty("connect_retry_time") Integer connectRetryTime,
      String password,
      @JsonProperty("multihop_ttl") Integer multihopTtl,
      @JsonProperty("ttl_security") Boolean ttlSecurity,
      @JsonProperty("local_address") String localAddress,
      Integer port,
      List<String> families) {}

  record Paths(List<String> prefixes, Map<String, String> attributes) {}

  static BgpConfigFile load(Path file) {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    try {
      return yaml.readValue(file.toFile(), BgpConfigFile.class);
    } catch (UnrecognizedPropertyException e) {
      throw new IllegalArgumentException(file + ": unknown key '" + e.getPropertyName() + "' (known: "
          + e.getKnownPropertyIds() + ")");
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }
}
