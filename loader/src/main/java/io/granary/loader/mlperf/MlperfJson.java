package io.granary.loader.mlperf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.granary.loader.report.OpSummary;
import io.granary.loader.report.ResultJson;
import io.granary.loader.report.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The {@code --json} file of an MLPerf-style run (fields in {@code docs/loader.md}, "MLPerf mode"). AU is a
 * fraction (DLIO prints percent); {@code get} has the shape of the plain loader's results ({@link ResultJson}).
 */
public final class MlperfJson {
  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private MlperfJson() {}

  public static ObjectNode toJson(MlperfResult r) {
    MlperfOptions o = r.options();
    Workload w = o.workload();
    ProbeResult best = r.reported();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("workload", w.wireName());
    root.put("protocol", o.protocol().wireName());
    ArrayNode endpoints = root.putArray("endpoints");
    o.endpoints().forEach(e -> endpoints.add(e.toString()));
    root.put("bucket", o.bucket());
    root.put("accelerators", r.accelerators());
    root.put("au", best.summary().au());
    root.put("au_stdev", best.summary().auStdev());
    root.put("au_threshold", w.auThreshold());
    root.put("pass", best.pass());
    root.put("samples_per_sec", best.summary().samplesPerSecond());
    root.put("throughput_mib_per_sec", best.summary().mibPerSecond());
    root.put("aborted", best.aborted());
    root.put("search", o.search());
    if (o.search()) {
      root.put("search_limit", r.searchLimit());
      root.put("at_limit", r.atLimit());
    }
    root.put("epochs", o.epochs());
    root.put("steps_per_epoch", best.stepsPerEpoch());
    root.put("batch", w.batch());
    root.put("read_threads", o.readThreads());
    root.put("compute_time_s", o.computeSeconds());
    root.put("files", r.dataset().files());
    root.put("samples_per_file", r.dataset().samplesPerFile());
    root.put("record_bytes", w.recordBytes());
    root.put("dataset_bytes", r.dataset().totalBytes());
    root.put("seed", o.seed());
    root.put("duration_s", r.seconds());
    ArrayNode probes = root.putArray("probes");
    for (ProbeResult p : r.probes()) {
      ObjectNode n = probes.addObject();
      n.put("accelerators", p.accelerators());
      n.put("au", p.summary().au());
      n.put("au_stdev", p.summary().auStdev());
      n.put("pass", p.pass());
      n.put("samples_per_sec", p.summary().samplesPerSecond());
      n.put("throughput_mib_per_sec", p.summary().mibPerSecond());
      n.put("steps_per_epoch", p.stepsPerEpoch());
      ArrayNode epochs = n.putArray("epoch_au");
      p.epochs().forEach(e -> epochs.add(e.au()));
      n.put("duration_s", p.seconds());
      n.put("gets", p.gets().count());
      n.put("bytes", p.gets().bytes());
      n.put("errors", p.gets().errors());
      n.put("aborted", p.aborted());
    }
    OpSummary g = r.gets();
    RunResult run = new RunResult(r.seconds(), Map.of("get", g), o.protocol().wireName(), o.bucket(), 1,
        r.accelerators() * o.readThreads());
    root.set("get", ResultJson.toJson(run).get("get"));
    return root;
  }

  public static void write(MlperfResult r, Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    MAPPER.writeValue(file.toFile(), toJson(r));
  }
}
