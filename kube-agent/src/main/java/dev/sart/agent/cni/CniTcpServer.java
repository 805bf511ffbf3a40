package dev.sart.agent.cni;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent's CNI endpoint on TCP ({@code sartd agent --cni-endpoint HOST:PORT}, sart's DaemonSet:
 * {@code 0.0.0.0:6000}): one port, two protocols. A connection that starts with the plugin's frame
 * magic ({@code "SCNI"}) is a sart-cni call, answered as on the UNIX socket; any other (HTTP/2,
 * whose preface starts {@code "PRI "}) is sart's gRPC {@code CNIApi}, passed through to the gRPC
 * server on a loopback port. So sart's netconf {@code "endpoint": "http://localhost:6000"} works
 * with this project's plugin, and gRPC tools keep working too.
 */
final class CniTcpServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CniTcpServer.class.getName());
  private static final byte[] MAGIC = {'S', 'C', 'N', 'I'};

  private final CniService service;
  private final ServerSocket server;
  private final int grpcPort;
  private final Thread acceptor;

  /**
   * Listens on {@code address}; other protocols go to the gRPC server on 127.0.0.1:{@code
   * grpcPort}.
   */
  CniTcpServer(InetSocketAddress address, CniService service, int grpcPort) throws IOException {
    this.service = service;
    this.grpcPort = grpcPort;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    try {
      server.bind(address, 64);
    } catch (IOException e) {
      server.close();
      throw new IOException("cannot serve CNI on " + address + ": " + e.getMessage(), e);
    }
    this.acceptor = Thread.ofPlatform().name("cni-tcp-accept").daemon().start(this::accept);
    if (!address.getAddress().isLoopbackAddress()) {
      LOG.warning(
          "event=cni-endpoint-not-loopback address="
              + address.getHostString()
              + ":"
              + port()
              + " msg=\"anyone who reaches this address can add and delete pod networks;"
              + " 127.0.0.1 is enough for sart-cni on the node\"");
    }
    LOG.info(() -> "CNI server listening tcp=" + address.getHostString() + ":" + port());
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket c;
      try {
        c = server.accept();
      } catch (IOException e) {
        if (!server.isClosed()) {
          LOG.log(Level.WARNING, "CNI accept failed", e);
        }
        return;
      }
      Thread.ofVirtual().name("cni-tcp-conn").start(() -> serve(c));
    }
  }

  private void serve(Socket c) {
    try (c) {
      c.setTcpNoDelay(true);
      InputStream in = c.getInputStream();
      byte[] head = in.readNBytes(MAGIC.length);
      if (Arrays.equals(head, MAGIC)) {
        InputStream frame = new SequenceInputStream(new ByteArrayInputStream(head), in);
        CniServer.serve(
            service,
            frame,
            Channels.newChannel(c.getOutputStream()),
            "tcp:" + server.getLocalPort());
      } else if (head.length > 0) {
        passThrough(c, head, in);
      }
    } catch (IOException e) {
      LOG.log(Level.FINE, "CNI TCP connection failed", e);
    }
  }

  /** Relays the connection to the gRPC server, {@code head} first, until either side closes. */
  private void passThrough(Socket c, byte[] head, InputStream in) throws IOException {
    try (Socket grpc = new Socket(InetAddress.getLoopbackAddress(), grpcPort)) {
      grpc.setTcpNoDelay(true);
      OutputStream toGrpc = grpc.getOutputStream();
      toGrpc.write(head);
      toGrpc.flush();
      Thread back =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      grpc.getInputStream().transferTo(c.getOutputStream());
                    } catch (IOException e) {
                      // either side closed
                    } finally {
                      try {
                        c.shutdownOutput();
                      } catch (IOException e) {
                        // closed already
                      }
                    }
                  });
      try {
        in.transferTo(toGrpc);
        grpc.shutdownOutput();
      } catch (IOException e) {
        // either side closed
      }
      try {
        back.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
