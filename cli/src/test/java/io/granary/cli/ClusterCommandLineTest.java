package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How the new admin commands parse, without a cluster: options, defaults and what is refused before any request. */
class ClusterCommandLineTest {

  private static Object command(String... args) {
    CommandLine.ParseResult r = GranaryCommand.commandLine().parseArgs(args);
    while (r.hasSubcommand()) {
      r = r.subcommand();
    }
    return r.commandSpec().userObject();
  }

  @Test
  void setState_noRebalance_isAFlagAfterTheState() {
    SetStateCommand c = (SetStateCommand) command("cluster", "set-state", "t3", "maintenance", "--no-rebalance");
    assertThat(c.node).isEqualTo("t3");
    assertThat(c.state).isEqualTo("maintenance");
    assertThat(c.noRebalance).isTrue();
  }

  @Test
  void node_waitSafe_defaultsToThirtyMinutes() {
    NodeCommand c = (NodeCommand) command("cluster", "node", "t1", "--wait-safe");
    assertThat(c.waitSafe).isTrue();
    assertThat(c.timeout).isEqualTo(Duration.ofMinutes(30));
    assertThat(((NodeCommand) command("cluster", "node", "t1", "--wait-safe", "--timeout", "90s")).timeout)
        .isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void rebalanceShow_idIsOptional() {
    assertThat(((RebalanceCommand.Show) command("rebalance", "show")).id).isNull();
    RebalanceCommand.Show c = (RebalanceCommand.Show) command("rebalance", "show", "rb-4", "--wait", "--json");
    assertThat(c.id).isEqualTo("rb-4");
    assertThat(c.await).isTrue();
    assertThat(c.json).isTrue();
  }

  @Test
  void target_weightAuto_isAccepted() {
    TargetCommand c = (TargetCommand) command("target", "--mountpath", "/tmp/x", "--primary", "http://p:1",
        "--weight", "auto");
    assertThat(c.weight).isEqualTo("auto");
  }

  @Test
  void setWeight_notANumber_isAUsageErrorBeforeAnyRequest() {
    StringWriter err = new StringWriter();
    CommandLine cl = GranaryCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute("cluster", "set-weight", "t2", "heavy", "--endpoint", "http://127.0.0.1:1");
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("granary cluster set-weight").contains("'heavy'");
  }
}
