package dev.sart.agent.cni;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.proto.v1.Args;
import dev.sart.proto.v1.CNIApiGrpc;
import dev.sart.proto.v1.CNIResult;
import dev.sart.proto.v1.IPConf;
import dev.sart.proto.v1.Interface;
import dev.sart.proto.v1.RouteConf;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * sart's gRPC {@code CNIApi} (Add, Del, Check) for tools: the same {@link CniService} the plugin
 * reaches, with {@code Args} turned into the CNI environment and {@code Args.data} as the network
 * configuration. An error is an INTERNAL status whose description is the CNI error JSON (sart:
 * ErrorResult as JSON).
 */
final class CniGrpcService extends CNIApiGrpc.CNIApiImplBase {
  private final CniService service;

  CniGrpcService(CniService service) {
    this.service = service;
  }

  @Override
  public void add(Args request, StreamObserver<CNIResult> response) {
    call("ADD", request, response);
  }

  @Override
  public void del(Args request, StreamObserver<CNIResult> response) {
    call("DEL", request, response);
  }

  @Override
  public void check(Args request, StreamObserver<CNIResult> response) {
    call("CHECK", request, response);
  }

  private void call(String command, Args a, StreamObserver<CNIResult> response) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CNI_COMMAND", command);
    env.put("CNI_CONTAINERID", a.getContainerId());
    env.put("CNI_NETNS", a.getNetns());
    env.put("CNI_IFNAME", a.getIfname());
    env.put("CNI_ARGS", a.getArgs());
    env.put("CNI_PATH", String.join(":", a.getPathList()));
    CniService.Response r = service.handle(env, a.getData().getBytes(StandardCharsets.UTF_8));
    String out = new String(r.stdout(), StandardCharsets.UTF_8).strip();
    if (r.exitCode() != 0) {
      response.onError(Status.INTERNAL.withDescription(out).asRuntimeException());
      return;
    }
    CNIResult.Builder b = CNIResult.newBuilder();
    if (!out.isEmpty()) {
      try {
        JsonNode n = CniRequest.JSON.readTree(out);
        for (JsonNode i : n.path("interfaces")) {
          b.addInterfaces(
              Interface.newBuilder()
                  .setName(i.path("name").asText())
                  .setMac(i.path("mac").asText())
                  .setSandbox(i.path("sandbox").asText("")));
        }
        for (JsonNode ip : n.path("ips")) {
          b.addIps(
              IPConf.newBuilder()
                  .setInterface(ip.path("interface").asInt())
                  .setAddress(ip.path("address").asText())
                  .setGateway(ip.path("gateway").asText("")));
        }
        for (JsonNode rt : n.path("routes")) {
          b.addRoutes(
              RouteConf.newBuilder()
                  .setDst(rt.path("dst").asText())
                  .setGw(rt.path("gw").asText("")));
        }
      } catch (IOException e) {
        response.onError(
            Status.INTERNAL.withDescription("bad result: " + e.getMessage()).asRuntimeException());
        return;
      }
    }
    response.onNext(b.build());
    response.onCompleted();
  }
}
