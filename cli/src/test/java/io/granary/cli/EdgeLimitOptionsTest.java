package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.common.http.HttpLimits;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The HTTP edge options of {@code granary proxy} and {@code granary target}: defaults, and refusals at start-up. */
class EdgeLimitOptionsTest {

  private static NodeOptions options(String... args) {
    CommandLine.ParseResult r = GranaryCommand.commandLine().parseArgs(args);
    return ((ProxyCommand) r.subcommand().commandSpec().userObject()).node;
  }

  @Test
  void proxy_defaults_areTheDocumentedOnes() {
    HttpLimits l = options("proxy", "--data", "/tmp/x").httpLimits();
    assertThat(l.headTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(l.bodyTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(l.idleTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(l.maxConnections()).isBetween(1, HttpLimits.DEFAULT_MAX_CONNECTIONS);
    assertThat(l.sendBuffer()).isEqualTo(128 << 10).isEqualTo(HttpLimits.DEFAULT_SEND_BUFFER);
    assertThat(options("proxy", "--data", "/tmp/x", "--send-buffer", "0").httpLimits().sendBuffer()).isZero();
    assertThat(options("proxy", "--data", "/tmp/x", "--send-buffer", "1MiB").httpLimits().sendBuffer())
        .isEqualTo(1 << 20);
  }

  @Test
  void proxy_givenValues_areTaken() {
    HttpLimits l = options("proxy", "--data", "/tmp/x", "--head-timeout", "2s", "--body-timeout", "500ms",
        "--idle-timeout", "1m", "--max-connections", "10000").httpLimits();
    assertThat(l).isEqualTo(new HttpLimits(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMinutes(1),
        10000));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"--head-timeout, 0s", "--body-timeout, -5s", "--idle-timeout, 0ms", "--max-connections, 0",
      "--max-connections, -1", "--send-buffer, 100", "--send-buffer, 4GiB"})
  void impossibleValue_refusesToStart_withOneLineNamingTheOption(String option, String value) throws Exception {
    Path data = Files.createTempDirectory("edge-options");
    for (String[] cmd : new String[][] {
        {"proxy", "--data", data.toString(), "--anonymous", "--host", "127.0.0.1", "--port", "0", option, value},
        {"target", "--mountpath", data.resolve("mp").toString(), "--primary", "http://127.0.0.1:1", "--host",
            "127.0.0.1", "--port", "0", option, value}}) {
      StringWriter err = new StringWriter();
      CommandLine cl = GranaryCommand.commandLine();
      cl.setErr(new PrintWriter(err));
      int exit = cl.execute(cmd);
      assertThat(exit).as(err.toString()).isEqualTo(1);
      assertThat(err.toString()).startsWith("granary " + cmd[0] + ": " + option + " must be")
          .hasLineCount(1);
    }
  }

  private static ProxyCommand proxy(String... args) {
    CommandLine.ParseResult r = GranaryCommand.commandLine().parseArgs(args);
    return (ProxyCommand) r.subcommand().commandSpec().userObject();
  }

  @Test
  void upstreamHeadTimeout_defaultIsTheDocumentedOne_andAGivenValueIsTaken() {
    assertThat(proxy("proxy", "--data", "/tmp/x").upstreamHeadTimeout).isEqualTo(Duration.ofHours(1))
        .isEqualTo(io.granary.proxy.ProxyConfig.DEFAULT_UPSTREAM_HEAD_TIMEOUT);
    assertThat(proxy("proxy", "--data", "/tmp/x", "--upstream-head-timeout", "90s").upstreamHeadTimeout)
        .isEqualTo(Duration.ofSeconds(90));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"0s", "-1m"})
  void upstreamHeadTimeout_notPositive_refusesToStart_withOneLineNamingTheOption(String value) throws Exception {
    Path data = Files.createTempDirectory("edge-options");
    StringWriter err = new StringWriter();
    CommandLine cl = GranaryCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute("proxy", "--data", data.toString(), "--anonymous", "--host", "127.0.0.1", "--port", "0",
        "--upstream-head-timeout", value);
    assertThat(exit).as(err.toString()).isEqualTo(1);
    assertThat(err.toString()).startsWith("granary proxy: --upstream-head-timeout must be positive").hasLineCount(1);
    assertThat(data.resolve("node-id")).as("nothing started").doesNotExist();
  }
}
