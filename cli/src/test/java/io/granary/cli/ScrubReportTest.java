package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A scrub job as {@code granary scrub --wait} and {@code granary job show} print it, and its exit code. */
class ScrubReportTest {
  private final ScrubReport report = new ScrubReport();

  /** scrub-ais.train as GET /v1/jobs/scrub-ais.train answers it, over t1 and t2. */
  private static JsonNode status(String state, long unrepairable) throws Exception {
    return ClusterJson.mapper().readTree("""
        {"id":"scrub-ais.train","kind":"scrub","bucket":"ais://train","state":"%s","objects":12,"bytes":4096,
         "corrupt":3,"repaired":2,"unrepairable":%d,
         "targets":[{"target":"t1","state":"%s","objects":7,"bytes":3000,"corrupt":2,"repaired":2,
                     "unrepairable":0,"problem":null},
                    {"target":"t2","state":"%s","objects":5,"bytes":1096,"corrupt":1,"repaired":0,
                     "unrepairable":%d,"problem":null}]}
        """.formatted(state, unrepairable, state, state, unrepairable));
  }

  private static String print(java.util.function.Consumer<PrintStream> p) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    p.accept(new PrintStream(b, true, StandardCharsets.UTF_8));
    return b.toString(StandardCharsets.UTF_8);
  }

  @Test
  void kindPicksTheScrubReport() throws Exception {
    assertThat(JobReport.of(status("running", 0))).isInstanceOf(ScrubReport.class);
  }

  @Test
  void outcome_succeededWithNothingUnrepairable_exits0_elseExits1() throws Exception {
    JsonNode clean = status("succeeded", 0);
    int[] code = new int[1];
    String out = print(o -> code[0] = report.outcome(clean, o));
    assertThat(code[0]).isZero();
    assertThat(out).isEqualTo("scrub scrub-ais.train succeeded: 12 objects checked (4096 bytes hashed), 3 corrupt "
        + "copies, 2 objects repaired, 0 unrepairable\n");

    assertThat(report.outcome(status("succeeded", 1), new PrintStream(new ByteArrayOutputStream()))).isOne();
    assertThat(report.outcome(status("failed", 0), new PrintStream(new ByteArrayOutputStream()))).isOne();
  }

  @Test
  void details_oneRowPerTarget() throws Exception {
    JsonNode job = status("succeeded", 1);
    String out = print(o -> report.details(job, o));
    assertThat(out).startsWith("scrub scrub-ais.train: succeeded, bucket ais://train\n")
        .contains("TARGET").contains("UNREPAIRABLE");
    assertThat(out.lines().filter(l -> l.startsWith("t1 ") || l.startsWith("t2 ")).count()).isEqualTo(2);
    assertThat(report.objects(status("running", 0))).isEqualTo("12");
  }
}
