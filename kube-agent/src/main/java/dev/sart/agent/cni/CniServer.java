package dev.sart.agent.cni;

import dev.sart.cni.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The UNIX socket sart-cni connects to: one request frame per connection, answered with one
 * response frame. The socket file is made with mode 0600 before it gets its name, so no other user
 * can ever connect. Each connection is served on a virtual thread; {@link CniService} serialises
 * per container id.
 */
final class CniServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CniServer.class.getName());

  private final Path path;
  private final CniService service;
  private final ServerSocketChannel server;
  private final Thread acceptor;

  CniServer(Path path, CniService service) throws IOException {
    this.path = path;
    this.service = service;
    Files.createDirectories(path.toAbsolutePath().getParent());
    Path tmp =
        path.resolveSibling(
            "." + path.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    Files.deleteIfExists(tmp);
    this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(tmp));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
    Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    this.acceptor = Thread.ofPlatform().name("cni-accept").daemon().start(this::accept);
    LOG.info(() -> "CNI server listening socket=" + path);
  }

  private void accept() {
    while (true) {
      SocketChannel c;
      try {
        c = server.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        LOG.log(Level.WARNING, "accept on " + path + " failed", e);
        return;
      }
      Thread.ofVirtual().name("cni-conn").start(() -> serve(c));
    }
  }

  private void serve(SocketChannel c) {
    try (c) {
      serve(service, Channels.newInputStream(c), c, path.toString());
    } catch (IOException e) {
      LOG.log(Level.FINE, "CNI connection failed", e);
    }
  }

  /**
   * Answers one request frame read from {@code in} with one response frame written to {@code out};
   * {@code where} names the endpoint in the log.
   */
  static void serve(
      CniService service, InputStream in, java.nio.channels.WritableByteChannel out, String where) {
    Phases phases = new Phases();
    String command = "?";
    try {
      Frame.Request req;
      try {
        req = Frame.decodeRequest(in);
      } catch (IOException e) {
        // not a frame of sart-cni: say so once per connection, with the reason
        LOG.warning(
            "event=cni-frame-rejected endpoint=" + where + " reason=\"" + e.getMessage() + "\"");
        return;
      }
      command = req.env().getOrDefault("CNI_COMMAND", "?");
      phases.mark("read");
      CniService.Response r = service.handle(req.env(), req.stdin(), phases);
      ByteBuffer buf = ByteBuffer.wrap(Frame.encodeResponse(r.exitCode(), r.stdout()));
      while (buf.hasRemaining()) {
        out.write(buf);
      }
      phases.mark("write");
      String cmd = command;
      LOG.fine(() -> "CNI " + cmd + " phases " + phases);
    } catch (IOException e) {
      LOG.log(Level.FINE, "CNI connection failed", e);
    } finally {
      phases.runLater();
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
    Files.deleteIfExists(path);
  }
}
