package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.loader.Protocol;
import io.granary.loader.protocol.ObjectClient;
import io.granary.loader.report.OpStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Emulated accelerators, readers and the AU they yield, against an in-memory server whose speed the test sets:
 * small cosmoflow-shaped datasets (batch 1, ~2.8 MB samples) with a short compute time, so each run takes well
 * under a second.
 */
@Timeout(30)
class AcceleratorRunTest {

  /** Serves a dataset's seeded bytes; {@code delayMillis} before each body, {@code failing} answers with an error. */
  static final class FakeServer implements ObjectClient {
    private final Map<String, Integer> index = new HashMap<>();
    private final Dataset served;
    private final long delayMillis;
    private final String failing;
    final AtomicInteger gets = new AtomicInteger();

    FakeServer(Dataset served, long delayMillis, String failing) {
      this.served = served;
      this.delayMillis = delayMillis;
      this.failing = failing;
      for (int f = 0; f < served.files(); f++) {
        index.put(served.name(f), f);
      }
    }

    @Override
    public void probe(String sampleName) {}

    @Override
    public long get(String name, BodyConsumer consumer) throws Exception {
      gets.incrementAndGet();
      Thread.sleep(delayMillis);
      if (name.equals(failing)) {
        throw new IOException("500 InternalError: boom");
      }
      try (InputStream in = zeros(served.fileSize(index.get(name)))) {
        return consumer.consume(in, null);
      }
    }

    /** {@code size} bytes at memory speed (content is not what is tested here). */
    private static InputStream zeros(long size) {
      return new InputStream() {
        private long left = size;

        @Override
        public int read(byte[] b, int off, int len) {
          if (left == 0) {
            return -1;
          }
          int n = (int) Math.min(len, left);
          left -= n;
          return n;
        }

        @Override
        public int read() {
          return left-- > 0 ? 0 : -1;
        }
      };
    }

    @Override
    public void put(String name, long size, Supplier<InputStream> content) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void delete(String name) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<String> list() {
      return List.copyOf(index.keySet());
    }

    @Override
    public void close() {}
  }

  private static MlperfOptions cosmoflow(int files, double compute, int epochs) {
    return new MlperfOptions(Workload.COSMOFLOW, List.of(URI.create("http://127.0.0.1:1")), "b", Protocol.NATIVE, 1,
        false, 0, files, 1, epochs, 0, compute, 2, "c/", null, false, null, false, 1, null, 5, null, null, false,
        null);
  }

  private static ProbeResult run(MlperfOptions o, Dataset d, ObjectClient server, int accelerators,
      ByteArrayOutputStream out) throws Exception {
    return new AcceleratorRun(o, d, List.of(server), new MlperfTable(new PrintStream(out, true,
        StandardCharsets.UTF_8))).run(accelerators);
  }

  @Test
  void fastServer_auNearOne_everyFileReadOnce_bytesCounted() throws Exception {
    MlperfOptions o = cosmoflow(12, 0.05, 1);
    Dataset d = Dataset.dlio(Workload.COSMOFLOW, "c/", 12, 1, 5);
    FakeServer server = new FakeServer(d, 0, null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ProbeResult r = run(o, d, server, 2, out);
    assertThat(r.aborted()).isNull();
    assertThat(r.stepsPerEpoch()).isEqualTo(6);
    assertThat(r.summary().au()).isBetween(0.75, 1.0);
    assertThat(r.pass()).isTrue();
    assertThat(r.gets().count()).isEqualTo(12).isEqualTo(server.gets.get());
    assertThat(r.gets().bytes()).isEqualTo(d.totalBytes());
    assertThat(r.gets().errors()).isZero();
    // two accelerators, the window's 5 steps over at least the 5 x 50 ms of compute after the first step
    assertThat(r.summary().samplesPerSecond()).isBetween(2 * 5 / 0.5, 2 * 5 / 0.25 + 1e-9);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("PASS (AU >= 70.00%)");
  }

  @Test
  void slowServer_accelerators_waitForData_auBelowThreshold() throws Exception {
    MlperfOptions o = cosmoflow(12, 0.005, 2);
    Dataset d = Dataset.dlio(Workload.COSMOFLOW, "c/", 12, 1, 5);
    // 2 readers, 40 ms a GET: a sample every ~20 ms for 5 ms of compute
    ProbeResult r = run(o, d, new FakeServer(d, 40, null), 1, new ByteArrayOutputStream());
    assertThat(r.epochs()).hasSize(2);
    assertThat(r.summary().au()).isBetween(0.05, 0.5);
    assertThat(r.pass()).isFalse();
    assertThat(r.epochs().get(0).loadSecondsPerStep()).isGreaterThan(0.005);
    assertThat(r.gets().count()).isEqualTo(24); // each epoch reads all 12 files
  }

  @Test
  void failedGet_abortsTheRun_withOneLine_andNothingHangs() throws Exception {
    MlperfOptions o = cosmoflow(12, 0.005, 1);
    Dataset d = Dataset.dlio(Workload.COSMOFLOW, "c/", 12, 1, 5);
    ProbeResult r = run(o, d, new FakeServer(d, 5, d.name(d.order(1)[3])), 3, new ByteArrayOutputStream());
    assertThat(r.aborted()).isEqualTo("GET " + d.name(d.order(1)[3]) + ": 500 InternalError: boom");
    assertThat(r.pass()).isFalse();
    assertThat(r.gets().errors()).isEqualTo(1);
  }

  @Test
  void wrongSizes_otherSeed_abortNamingTheCause() throws Exception {
    MlperfOptions o = cosmoflow(4, 0.005, 1);
    Dataset expected = Dataset.dlio(Workload.COSMOFLOW, "c/", 4, 1, 5);
    Dataset served = Dataset.dlio(Workload.COSMOFLOW, "c/", 4, 1, 6);
    ProbeResult r = run(o, expected, new FakeServer(served, 0, null), 1, new ByteArrayOutputStream());
    assertThat(r.aborted()).contains("bytes, expected").contains("another --seed");
  }

  @Test
  void multiSampleFiles_yieldTheirSamplesAsBytesArrive_andOnlyTheFilesNeededAreRead() throws Exception {
    Dataset d = Dataset.dlio(Workload.RESNET50, "r/", 4, 3, 0); // 3 records of 114,660 B a file
    FakeServer server = new FakeServer(d, 0, null);
    SampleBuffer buffer = new SampleBuffer(100);
    OpStats gets = new OpStats("get");
    ShardReaders readers = new ShardReaders("t", server, d, new int[] {0, 1, 2, 3}, 5, buffer, gets, why -> { });
    readers.start(1);
    readers.join();
    buffer.take(6); // two files claimed for 5 samples: 6 samples produced
    buffer.close();
    assertThat(server.gets.get()).isEqualTo(2);
    assertThat(buffer.put()).isEqualTo(-1);
    assertThat(gets.sample(1).bytes()).isEqualTo(2L * 3 * 114_660);
  }
}
