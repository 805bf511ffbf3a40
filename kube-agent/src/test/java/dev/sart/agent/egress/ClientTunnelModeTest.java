package dev.sart.agent.egress;

import static dev.sart.crds.testing.KubeObjects.labelled;
import static dev.sart.crds.testing.KubeObjects.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.crds.Egress;
import dev.sart.crds.EgressSpec;
import dev.sart.crds.Sart;
import dev.sart.crds.TunnelMode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client end follows the mode the egress pods chose when the Egress names none. */
class ClientTunnelModeTest {
  private static Egress egress(TunnelMode tunnel) {
    var e = new Egress();
    e.getMetadata().setNamespace("internet-egress");
    e.getMetadata().setName("nat");
    var spec = new EgressSpec(List.of("0.0.0.0/0"), 1);
    e.setSpec(new EgressSpec(spec.destinations(), 1, null, null, null, null, null, tunnel, null));
    return e;
  }

  private static Pod gateway(String namespace, String egress, String mode) {
    return labelled(
        pod(namespace, egress + "-" + mode, null),
        Map.of(Sart.EGRESS_NAME_LABEL, egress, Sart.EGRESS_TUNNEL_LABEL, mode));
  }

  @Test
  void anEgressWithoutTunnelUsesWhatItsPodsReportElseVxlan() {
    var auto = egress(null);
    assertEquals(TunnelMode.VXLAN, ClientAgent.mode(auto, ClientAgent.reported(List.of())));
    var reported =
        ClientAgent.reported(
            List.of(
                gateway("internet-egress", "nat", "fou"),
                gateway("other", "nat", "vxlan"),
                gateway("internet-egress", "other", "vxlan")));
    assertEquals(
        Map.of(
            "internet-egress/nat", TunnelMode.FOU,
            "other/nat", TunnelMode.VXLAN,
            "internet-egress/other", TunnelMode.VXLAN),
        reported);
    assertEquals(TunnelMode.FOU, ClientAgent.mode(auto, reported));
    // a mode in the Egress wins over the pods' labels
    assertEquals(TunnelMode.VXLAN, ClientAgent.mode(egress(TunnelMode.VXLAN), reported));
  }
}
