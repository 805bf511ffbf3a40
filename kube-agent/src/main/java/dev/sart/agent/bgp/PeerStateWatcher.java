package dev.sart.agent.bgp;

import com.google.protobuf.Empty;
import dev.sart.proto.v1.BgpExporterApiGrpc;
import dev.sart.proto.v1.ExportPeerRequest;
import dev.sart.proto.v1.ExportPeerStateRequest;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * sart's peer state watcher: the agent serves {@code sart.v1.BgpExporterApi} for a speaker started
 * with {@code sartd bgp --exporter HOST:PORT} (sart's DaemonSet: {@code
 * --exporter=127.0.0.1:5003}). {@code ExportPeerState} asks the agent for a pass at once, which
 * brings the BGPPeer's status and the advertisements in line (the agent also follows the speaker's
 * {@code WatchPeerState} stream, so this is a second, earlier signal, not the only one); {@code
 * ExportPeer} is accepted and does nothing, as in sart.
 */
public final class PeerStateWatcher extends BgpExporterApiGrpc.BgpExporterApiImplBase {
  private static final Logger LOG = Logger.getLogger(PeerStateWatcher.class.getName());

  private final BgpAgent agent;
  private final AtomicLong received = new AtomicLong();

  PeerStateWatcher(BgpAgent agent) {
    this.agent = agent;
  }

  /** Serves the watcher for {@code agent} on {@code address}. */
  public static Server serve(InetSocketAddress address, BgpAgent agent) throws IOException {
    return NettyServerBuilder.forAddress(address)
        .addService(new PeerStateWatcher(agent))
        .build()
        .start();
  }

  /** How many ExportPeerState calls arrived. */
  long received() {
    return received.get();
  }

  @Override
  public void exportPeer(ExportPeerRequest request, StreamObserver<Empty> response) {
    response.onNext(Empty.getDefaultInstance());
    response.onCompleted();
  }

  @Override
  public void exportPeerState(ExportPeerStateRequest r, StreamObserver<Empty> response) {
    received.incrementAndGet();
    LOG.info(
        () ->
            "event=peer-state-exported peer="
                + r.getAddr()
                + " asn="
                + r.getAsn()
                + " name="
                + r.getName()
                + " state="
                + r.getState());
    agent.exported(r.getAddr());
    response.onNext(Empty.getDefaultInstance());
    response.onCompleted();
  }
}
