package io.granary.loader.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The {@code --json} file. Each operation is an object with {@code count}, {@code bytes}, {@code errors},
 * {@code verified}, {@code ops_per_sec}, {@code throughput_bytes_per_sec}, {@code latency_us} (min, avg, p50, p90,
 * p99, max) and {@code histogram}: the HdrHistogram, compressed and base64-encoded, so that {@code granary load
 * merge} combines percentiles exactly rather than averaging them.
 */
public final class ResultJson {
  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final String[] META = {"duration_s", "protocol", "bucket", "loaders", "workers"};

  private ResultJson() {}

  public static ObjectNode toJson(RunResult r) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("duration_s", r.durationSeconds());
    root.put("protocol", r.protocol());
    root.put("bucket", r.bucket());
    root.put("loaders", r.loaders());
    root.put("workers", r.workers());
    for (OpSummary s : r.ops().values()) {
      ObjectNode o = root.putObject(s.op());
      o.put("count", s.count());
      o.put("bytes", s.bytes());
      o.put("errors", s.errors());
      o.put("verified", s.verified());
      o.put("ops_per_sec", s.opsPerSecond());
      o.put("throughput_bytes_per_sec", s.throughput());
      ObjectNode lat = o.putObject("latency_us");
      lat.put("min", s.min());
      lat.put("avg", s.mean());
      lat.put("p50", s.percentile(50));
      lat.put("p90", s.percentile(90));
      lat.put("p99", s.percentile(99));
      lat.put("max", s.max());
      o.put("histogram", encode(s.latency()));
    }
    return root;
  }

  public static void write(RunResult r, Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    MAPPER.writeValue(file.toFile(), toJson(r));
  }

  /** Reads a file {@link #write} wrote; a one-line {@link IllegalArgumentException} if it is not one. */
  public static RunResult read(Path file) {
    JsonNode root;
    try {
      root = MAPPER.readTree(file.toFile());
    } catch (NoSuchFileException | FileNotFoundException e) {
      throw new IllegalArgumentException("no such file: " + file);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + " is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (root == null || !root.isObject() || !root.has("duration_s")) {
      throw new IllegalArgumentException(file + " is not a granary load --json result");
    }
    double duration = root.path("duration_s").asDouble();
    Map<String, OpSummary> ops = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : root.properties()) {
      if (!e.getValue().isObject() || Arrays.asList(META).contains(e.getKey())) {
        continue;
      }
      JsonNode o = e.getValue();
      if (!o.hasNonNull("histogram")) {
        throw new IllegalArgumentException(file + ": '" + e.getKey() + "' has no histogram");
      }
      ops.put(e.getKey(), new OpSummary(e.getKey(), o.path("count").asLong(), o.path("bytes").asLong(),
          o.path("errors").asLong(), o.path("verified").asLong(), duration,
          decode(file, o.path("histogram").asText())));
    }
    return new RunResult(duration, ops, root.path("protocol").asText(null), root.path("bucket").asText(null),
        root.path("loaders").asInt(1), root.path("workers").asInt(0));
  }

  static String encode(Histogram h) {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), n));
  }

  static Histogram decode(Path file, String base64) {
    try {
      return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
    } catch (IllegalArgumentException | DataFormatException e) {
      throw new IllegalArgumentException(file + ": bad histogram: " + e.getMessage());
    }
  }
}
