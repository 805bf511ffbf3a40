package dev.sart.testbed;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** TCP MD5 signatures (RFC 2385) as each daemon configures them, against BIRD. */
class Md5AuthenticationTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  static Stream<RouterKind> kinds() {
    return Arrays.stream(RouterKind.values());
  }

  @ParameterizedTest(name = "{0} comes up with BIRD when both use the same password")
  @MethodSource("kinds")
  void sessionComesUpWithTheRightPassword(RouterKind kind) {
    PairSetup p =
        PairSetup.create(
            testbed.topology(),
            RouterKind.BIRD,
            kind,
            n -> n.withPassword("s3cret-md5"),
            n -> n.withPassword("s3cret-md5"));
    p.left().awaitEstablished(PairSetup.RIGHT_V4);
    p.right().awaitEstablished(PairSetup.LEFT_V4);
    p.left().awaitRoute(PairSetup.RIGHT_PREFIX_V4);
  }

  @ParameterizedTest(name = "{0} stays down with BIRD when the passwords differ")
  @MethodSource("kinds")
  void sessionStaysDownWithAWrongPassword(RouterKind kind) {
    PairSetup p =
        PairSetup.create(
            testbed.topology(),
            RouterKind.BIRD,
            kind,
            n -> n.withPassword("s3cret-md5"),
            n -> n.withPassword("not-the-secret"));
    // Both sides retry every second; the kernel drops the unsigned-or-mis-signed SYNs each time.
    await("session stays down")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(8))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () ->
                p.left().sessionState(PairSetup.RIGHT_V4) != SessionState.ESTABLISHED
                    && p.right().sessionState(PairSetup.LEFT_V4) != SessionState.ESTABLISHED);
    assertNotEquals(SessionState.ESTABLISHED, p.left().sessionState(PairSetup.RIGHT_V4));
  }
}
