package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** NodeStatusReport, NodeChangeReport and what --wait-safe waits for. */
class NodeReportsTest {

  private static JsonNode json(String s) {
    try {
      return ClusterJson.mapper().readTree(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String print(Consumer<PrintStream> f) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    f.accept(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static final String DRAINING = """
      {"id":"t3","role":"target","state":"maintenance","url":"http://127.0.0.1:51083","weight":1.0,
       "in_placement":false,"rebalance":"rb-4","rebalance_state":"running",
       "progress":{"target":"t3","rebalance":4,"state":"running","to_move":11,"sent":5,"bytes_sent":102400,
                   "received":0,"failed":1,"failures":[{"object":"b/x","error":"no room"}],
                   "held_bytes":122880,"holds_objects":true},
       "safe_to_stop":false,"safe_to_remove":false}""";

  @Test
  void print_targetInMaintenance_showsItsPartInTheRebalanceAndSafety() throws Exception {
    String out = print(o -> NodeStatusReport.print(json(DRAINING), o));
    assertThat(out).contains("t3: target, maintenance, out of placement, weight 1.0, http://127.0.0.1:51083")
        .contains("rebalance rb-4 (running): running, 5 of 11 sent (100.0 KiB), 0 received, 1 failed; holds 120.0 KiB")
        .contains("failed: b/x: no room")
        .contains("safe to stop: no, safe to remove: no");
  }

  @Test
  void print_retiredTarget_saysItLeftAndIsSafeToRemove() throws Exception {
    String out = print(o -> NodeStatusReport.print(json("""
        {"id":"t1","role":"target","state":"decommissioned","in_placement":false,"safe_to_stop":true,
         "safe_to_remove":true}"""), o));
    assertThat(out).contains("t1: decommissioned, has left the cluster map")
        .contains("safe to stop: yes, safe to remove: yes");
  }

  @Test
  void print_targetThatDidNotAnswer_saysWhy() throws Exception {
    String out = print(o -> NodeStatusReport.print(json("""
        {"id":"t3","role":"target","state":"suspended","url":"u","weight":1.0,"in_placement":true,
         "rebalance":"rb-8","rebalance_state":"finished","problem":"target t3 is suspended","safe_to_stop":true,
         "safe_to_remove":false}"""), o));
    assertThat(out).contains("rebalance rb-8 (finished): no progress (target t3 is suspended)")
        .contains("safe to stop: yes");
  }

  @Test
  void line_isStateAndPartInOneLine() throws Exception {
    assertThat(NodeStatusReport.line(json(DRAINING)))
        .isEqualTo("t3 maintenance, rb-4: running, 5 of 11 sent (100.0 KiB), 0 received, 1 failed; holds 120.0 KiB");
  }

  @Test
  void awaited_dependsOnWhyTheNodeIsAway() {
    assertThat(NodeCommand.awaited("decommissioning")).isEqualTo("safe_to_remove");
    assertThat(NodeCommand.awaited("decommissioned")).isEqualTo("safe_to_remove");
    assertThat(NodeCommand.awaited("maintenance")).isEqualTo("safe_to_stop");
    assertThat(NodeCommand.awaited("suspended")).isEqualTo("safe_to_stop");
    assertThat(NodeCommand.awaited("active")).isNull();
    assertThat(NodeCommand.awaited("offline")).isNull();
  }

  private static final String MAP = """
      {"version":9,"uuid":"u","primary":"p1","proxies":{"p1":{"id":"p1","role":"proxy","state":"active"}},
       "targets":{"t1":{"id":"t1","role":"target","state":"decommissioning","weight":1.0},
                  "t2":{"id":"t2","role":"target","state":"active","weight":2.0}},
       "rebalance":{"id":5,"state":"running","started":"2026-11-26T06:01:06Z"},"retired":["t0"]}""";

  @Test
  void changeReport_decommissioning_namesTheRebalanceAndHowToWait() throws Exception {
    String out = print(o -> NodeChangeReport.print(json(MAP), "t1", o));
    assertThat(out).contains("t1: decommissioning, weight 1.0; out of placement")
        .contains("rebalance rb-5 is running; follow it with: granary rebalance show rb-5 --wait")
        .contains("granary cluster node t1 --wait-safe");
  }

  @Test
  void changeReport_weight_showsTheNewWeight() throws Exception {
    String out = print(o -> NodeChangeReport.print(json(MAP), "t2", o));
    assertThat(out).contains("t2: active, weight 2.0; in placement").contains("rb-5").doesNotContain("--wait-safe");
  }

  @Test
  void changeReport_nodeThatLeft_saysSo() throws Exception {
    assertThat(print(o -> NodeChangeReport.print(json(MAP), "t0", o)))
        .contains("t0 was decommissioned and has left the map");
  }
}
