package io.granary.loader.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  private static RunResult run(long seed, int n, long scale, double seconds) {
    OpStats get = new OpStats("get");
    OpStats put = new OpStats("put");
    Random r = new Random(seed);
    for (int i = 0; i < n; i++) {
      get.ok(1 + r.nextInt(1000) * scale, 100);
      put.ok(1 + r.nextInt(5000) * scale, 1000);
    }
    get.error();
    get.verifiedOne();
    get.sample(seconds);
    put.sample(seconds);
    return new RunResult(seconds, Map.of("get", get.total(seconds), "put", put.total(seconds)), "native", "b", 1, 4);
  }

  @Test
  void stats_intervalAndTotals() {
    OpStats s = new OpStats("get");
    s.ok(100, 10);
    s.ok(300, 10);
    OpSummary first = s.sample(1);
    s.ok(200, 5);
    s.error();
    OpSummary second = s.sample(1);
    assertThat(first.count()).isEqualTo(2);
    assertThat(first.bytes()).isEqualTo(20);
    assertThat(second.count()).isEqualTo(1);
    assertThat(second.errors()).isEqualTo(1);
    OpSummary total = s.total(2);
    assertThat(total.count()).isEqualTo(3);
    assertThat(total.bytes()).isEqualTo(25);
    assertThat(total.throughput()).isEqualTo(12.5);
    assertThat(total.max()).isBetween(299L, 301L);
  }

  @Test
  void merge_isExact_countsAdd_throughputOverLongestRun(@TempDir Path dir) throws Exception {
    RunResult a = run(1, 5000, 1, 10);
    RunResult b = run(2, 3000, 7, 12);
    ResultJson.write(a, dir.resolve("a.json"));
    ResultJson.write(b, dir.resolve("b.json"));
    RunResult m = RunResult.merge(List.of(ResultJson.read(dir.resolve("a.json")), ResultJson.read(dir.resolve("b.json"))));

    Histogram all = a.ops().get("put").latency().copy();
    all.add(b.ops().get("put").latency());
    OpSummary put = m.ops().get("put");
    assertThat(put.count()).isEqualTo(8000);
    assertThat(put.bytes()).isEqualTo(8000L * 1000);
    assertThat(put.percentile(99)).isEqualTo(all.getValueAtPercentile(99));
    assertThat(put.percentile(50)).isEqualTo(all.getValueAtPercentile(50));
    assertThat(put.max()).isEqualTo(all.getMaxValue());
    assertThat(put.throughput()).isEqualTo(8000.0 * 1000 / 12);
    assertThat(m.ops().get("get").errors()).isEqualTo(2);
    assertThat(m.ops().get("get").verified()).isEqualTo(2);
    assertThat(m.durationSeconds()).isEqualTo(12);
    assertThat(m.loaders()).isEqualTo(2);
    assertThat(m.workers()).isEqualTo(8);
  }

  @Test
  void json_shape(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("r.json");
    ResultJson.write(run(3, 100, 1, 5), f);
    JsonNode root = new ObjectMapper().readTree(f.toFile());
    assertThat(root.path("duration_s").asDouble()).isEqualTo(5);
    for (String op : List.of("get", "put")) {
      JsonNode o = root.path(op);
      assertThat(o.path("count").asLong()).isEqualTo(100);
      assertThat(o.has("bytes") && o.has("errors") && o.has("throughput_bytes_per_sec") && o.has("histogram"))
          .isTrue();
      assertThat(o.path("latency_us").fieldNames()).toIterable()
          .containsExactly("min", "avg", "p50", "p90", "p99", "max");
    }
    assertThat(root.path("put").path("throughput_bytes_per_sec").asDouble()).isEqualTo(100 * 1000 / 5.0);
  }

  @Test
  void read_notAResult_isOneLine(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("x.json");
    Files.writeString(f, "{\"hello\":1}");
    assertThatThrownBy(() -> ResultJson.read(f)).hasMessageContaining("not a granary load --json result");
    Files.writeString(f, "not json at all");
    assertThatThrownBy(() -> ResultJson.read(f)).hasMessageContaining("is not JSON").hasMessageNotContaining("\n");
    assertThatThrownBy(() -> ResultJson.read(dir.resolve("missing.json"))).hasMessageContaining("no such file");
  }

  @Test
  void table_printsRowsAndSummary() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    StatsTable t = new StatsTable(new PrintStream(buf, true, StandardCharsets.UTF_8));
    RunResult r = run(4, 10, 1, 1);
    t.header();
    t.row("00:00:01", r.ops().get("get"), r.ops().get("get"));
    t.summary(r);
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("LATENCY ms").contains("GET  10 (10)").contains("Actual run duration: 1.00s")
        .contains("1 (1)");
    assertThat(StatsTable.bytes(1536)).isEqualTo("1.50KiB");
  }
}
