package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A node's start builds only its own command; anything else, and the top-level help, sees every command. */
class GranaryCommandTreeTest {

  @Test
  void aNamedSubcommand_isTheOnlyOneBuilt_andParsesAsInTheWholeTree() {
    CommandLine cl = GranaryCommand.commandLine("target");
    assertThat(cl.getSubcommands()).containsOnlyKeys("target");
    CommandLine.ParseResult r = cl.parseArgs("target", "--mountpath", "/tmp/x", "--primary", "http://p:1");
    assertThat(r.subcommand().commandSpec().userObject()).isInstanceOf(TargetCommand.class);
    assertThat(r.subcommand().commandSpec().qualifiedName()).isEqualTo("granary target");
  }

  @Test
  void noOrAnUnknownFirstArgument_buildsEveryCommand_soHelpAndErrorsNameThemAll() {
    assertThat(GranaryCommand.commandLine(null).getSubcommands()).containsKeys("local", "proxy", "target", "cluster",
        "rebalance", "bucket", "prefetch", "job", "load", "mountpath", "operator", "scrub");
    assertThat(GranaryCommand.commandLine("--help").getSubcommands()).hasSize(12);
    StringWriter err = new StringWriter();
    CommandLine cl = GranaryCommand.commandLine("tagret");
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("tagret")).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("granary: Unmatched argument at index 0: 'tagret' (see: granary --help)" + System.lineSeparator());
  }
}
