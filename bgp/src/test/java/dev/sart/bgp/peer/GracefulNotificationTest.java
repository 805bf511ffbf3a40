package dev.sart.bgp.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Notification;
import dev.sart.bgp.wire.Open;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 8538: when a NOTIFICATION ends a session as a restart, and which go out as a Hard Reset. */
class GracefulNotificationTest {
  private static Open open(int restartFlags) {
    return Open.of(
        65001,
        90,
        0x0a000001,
        restartFlags < 0
            ? List.of(new Capability.RouteRefresh())
            : List.of(new Capability.GracefulRestart(restartFlags, 120, List.of())));
  }

  @Test
  void theNBitCountsOnlyWhenBothSentIt() {
    int n = Capability.GracefulRestart.NOTIFICATION;
    int r = Capability.GracefulRestart.RESTART_STATE;
    assertTrue(GracefulNotification.negotiated(open(n), open(n | r)));
    assertFalse(GracefulNotification.negotiated(open(n), open(0)));
    assertFalse(GracefulNotification.negotiated(open(0), open(n)));
    assertFalse(GracefulNotification.negotiated(open(n), open(-1))); // no capability at all
    assertFalse(GracefulNotification.negotiated(open(r), open(r)));
  }

  @Test
  void whatEndsASessionForGoodGoesOutAsAHardResetOnceNegotiated() {
    // §5.1 and RFC 9384: max prefixes, shutdown, de-configured, reset, BFD down
    for (int subcode : new int[] {1, 2, 3, 4, 10}) {
      Notification cease = new Notification(6, subcode);
      Notification sent = GracefulNotification.toSend(cease, true);
      assertTrue(sent.isHardReset(), () -> "Cease/" + subcode);
      assertEquals(cease, sent.hardResetReason().orElseThrow());
      assertEquals(cease, GracefulNotification.toSend(cease, false), "no N bit: as before");
    }
    // the rest stay graceful: other configuration change, collision, out of resources, hold
    // timer, UPDATE and header errors
    for (Notification n :
        List.of(
            new Notification(6, 6),
            new Notification(6, 7),
            new Notification(6, 8),
            new Notification(4, 0),
            new Notification(3, 1),
            new Notification(1, 2))) {
      assertEquals(n, GracefulNotification.toSend(n, true), n::toString);
    }
    // a Hard Reset is not wrapped twice
    Notification hard = Notification.hardReset(new Notification(6, 2));
    assertEquals(hard, GracefulNotification.toSend(hard, true));
  }

  @Test
  void aSessionEndedByANotificationOtherThanAHardResetIsARestartOnceNegotiated() {
    assertTrue(GracefulNotification.restarting(null, false), "no NOTIFICATION: RFC 4724");
    assertTrue(GracefulNotification.restarting(null, true));
    assertTrue(GracefulNotification.restarting(new Notification(4, 0), true));
    assertTrue(GracefulNotification.restarting(new Notification(6, 4), true));
    assertFalse(GracefulNotification.restarting(new Notification(4, 0), false));
    assertFalse(
        GracefulNotification.restarting(Notification.hardReset(new Notification(4, 0)), true));
  }
}
