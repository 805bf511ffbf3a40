package dev.sart.bgp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every message captured from real FRR, BIRD and GoBGP sessions (src/test/resources/captured, see
 * the README there) decodes without an error and re-encodes to the same bytes. The session options
 * come from the two OPENs of the captured connection, as the speaker would negotiate them.
 */
class CapturedSessionsTest {

  private static Path root() {
    try {
      return Path.of(CapturedSessionsTest.class.getResource("/captured").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Each captured message file, as "sender-to-receiver-cN/NNN-type.bin". */
  static Stream<String> messages() throws IOException {
    Path root = root();
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".bin"))
          .map(p -> root.relativize(p).toString())
          .sorted()
          .toList()
          .stream();
    }
  }

  @Test
  void theCaptureHoldsEveryMessageTypeFromEverySpeaker() throws IOException {
    List<String> all = messages().toList();
    for (String speaker : List.of("frr", "bird", "gobgp")) {
      for (String type : List.of("open", "update", "keepalive", "notification")) {
        assertTrue(
            all.stream().anyMatch(m -> m.startsWith(speaker + "-to-") && m.endsWith(type + ".bin")),
            speaker + " sent no " + type);
      }
    }
    assertTrue(all.stream().anyMatch(m -> m.endsWith("route-refresh.bin")), "no ROUTE-REFRESH");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  void everyCapturedMessageDecodesCleanlyAndReEncodesToTheSameBytes(String name) throws Exception {
    Path file = root().resolve(name);
    byte[] bytes = Files.readAllBytes(file);
    Path connection = file.getParent();
    Optional<Open> senderOpen = open(connection);
    Optional<Open> receiverOpen = open(reverse(connection));
    SessionOptions received = SessionOptions.DEFAULT;
    SessionOptions sent = SessionOptions.DEFAULT;
    if (senderOpen.isPresent() && receiverOpen.isPresent()) {
      received = SessionOptions.negotiate(receiverOpen.get(), senderOpen.get(), true);
      sent = SessionOptions.negotiate(senderOpen.get(), receiverOpen.get(), true);
    }
    assertEquals(
        bytes.length, Framer.frameLength(bytes, 0, bytes.length, received.extendedMessage()));
    Message message = new BgpCodec(received).decode(bytes, 0, bytes.length);
    if (message instanceof Update u) {
      assertEquals(List.of(), u.errors());
    }
    assertEquals(
        HexFormat.of().formatHex(bytes),
        HexFormat.of().formatHex(new BgpCodec(sent).encode(message)),
        () -> "re-encoding " + message);
  }

  /** {@code a-to-b[-v6]-cN} → {@code b-to-a[-v6]-cN}. */
  private static Path reverse(Path connection) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\w+)-to-(\\w+)(-v6)?(-c\\d+)")
            .matcher(connection.getFileName().toString());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a connection folder: " + connection);
    }
    String v6 = m.group(3) == null ? "" : m.group(3);
    return connection.resolveSibling(m.group(2) + "-to-" + m.group(1) + v6 + m.group(4));
  }

  private static Optional<Open> open(Path connection) {
    if (!Files.isDirectory(connection)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(connection)) {
      Optional<Path> open = files.filter(p -> p.toString().endsWith("-open.bin")).findFirst();
      if (open.isEmpty()) {
        return Optional.empty();
      }
      byte[] bytes = Files.readAllBytes(open.get());
      return Optional.of(
          (Open) new BgpCodec(SessionOptions.DEFAULT).decode(bytes, 0, bytes.length));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NotificationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void theOptionsNegotiatedFromTheCapturedOpensMatchTheConfiguration() {
    Path root = root();
    SessionOptions frrFromBird =
        SessionOptions.negotiate(
            open(root.resolve("frr-to-bird-c1")).orElseThrow(),
            open(root.resolve("bird-to-frr-c1")).orElseThrow(),
            true);
    assertTrue(frrFromBird.fourOctetAs());
    assertTrue(frrFromBird.extendedMessage()); // only BIRD and FRR enable RFC 8654
    assertEquals(
        java.util.Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST), frrFromBird.addPathReceive());
    assertEquals(
        java.util.Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST), frrFromBird.addPathSend());
    Open gobgp = open(root.resolve("gobgp-to-frr-c1")).orElseThrow();
    assertEquals(Iana.AS_TRANS, gobgp.myAs());
    assertEquals(4200000003L, gobgp.as());
    assertTrue(gobgp.capability(Capability.GracefulRestart.class).isPresent());
    SessionOptions birdFromGobgp =
        SessionOptions.negotiate(open(root.resolve("bird-to-gobgp-c1")).orElseThrow(), gobgp, true);
    assertFalse(birdFromGobgp.extendedMessage());
    SessionOptions overIpv6 =
        SessionOptions.negotiate(
            open(root.resolve("frr-to-bird-v6-c1")).orElseThrow(),
            open(root.resolve("bird-to-frr-v6-c1")).orElseThrow(),
            true);
    assertEquals(java.util.Set.of(Family.IPV4_UNICAST), overIpv6.extendedNextHop());
  }

  @Test
  void overTheIpv6SessionIpv4RoutesHaveIpv6NextHops() throws Exception {
    Path connection = root().resolve("bird-to-frr-v6-c1");
    SessionOptions options =
        SessionOptions.negotiate(
            open(reverse(connection)).orElseThrow(), open(connection).orElseThrow(), true);
    boolean seen = false;
    try (Stream<Path> files = Files.list(connection)) {
      for (Path f : files.filter(p -> p.toString().endsWith("-update.bin")).toList()) {
        byte[] bytes = Files.readAllBytes(f);
        MpReachNlri reach =
            ((Update) new BgpCodec(options).decode(bytes, 0, bytes.length)).mpReach();
        // BIRD keeps a next hop on the shared IPv4 subnet as it is; its own routes get its IPv6
        // address
        if (reach != null
            && reach.family().equals(Family.IPV4_UNICAST)
            && reach.nextHop().length() >= 16) {
          seen = true;
        }
      }
    }
    assertTrue(seen, "no IPv4 route with an IPv6 next hop from BIRD");
  }

  @Test
  void eachCapturedStreamFramesCorrectlyWhenItArrivesInSmallPieces() throws Exception {
    java.util.Random random = new java.util.Random(7);
    try (Stream<Path> connections = Files.list(root())) {
      for (Path connection : connections.filter(Files::isDirectory).toList()) {
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        List<Path> files;
        try (Stream<Path> s = Files.list(connection)) {
          files = s.sorted().toList();
        }
        for (Path f : files) {
          stream.write(Files.readAllBytes(f));
        }
        byte[] all = stream.toByteArray();
        // bytes arrive in pieces of 1..40 octets; the framer must wait, never fail
        byte[] buffer = new byte[all.length];
        int received = 0;
        int start = 0;
        int framed = 0;
        while (received < all.length) {
          int piece = Math.min(all.length - received, 1 + random.nextInt(40));
          System.arraycopy(all, received, buffer, received, piece);
          received += piece;
          int length;
          while ((length = Framer.frameLength(buffer, start, received - start, true))
              != Framer.NEED_MORE) {
            start += length;
            framed++;
          }
        }
        assertEquals(files.size(), framed, connection.toString());
        assertEquals(all.length, start);
      }
    }
  }

  @Test
  void reversingAConnectionFolderNameSwapsTheSpeakers() {
    assertEquals(
        "bird-to-frr-c1", reverse(Path.of("x", "frr-to-bird-c1")).getFileName().toString());
    assertEquals(
        "bird-to-frr-v6-c2", reverse(Path.of("frr-to-bird-v6-c2")).getFileName().toString());
    assertFalse(reverse(Path.of("frr-to-gobgp-c2")).toString().contains("frr-to"));
  }
}
