package io.granary.cli;

import io.granary.cli.local.LocalCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code granary}: the single entry point. */
@Command(name = "granary", mixinStandardHelpOptions = true, version = "granary 0.1.0",
    description = "Caching object storage for ML training data.",
    subcommands = {LocalCommand.class, ProxyCommand.class, TargetCommand.class, ClusterCommand.class,
        RebalanceCommand.class, BucketCommand.class, PrefetchCommand.class, JobCommand.class, LoadCommand.class,
        MountpathCommand.class, OperatorCommand.class})
public final class GranaryCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line with Granary's error handling: one-line messages, no stack traces, exit code 1. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new GranaryCommand());
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      String msg = ex.getMessage() == null ? ex.toString() : ex.getMessage();
      commandLine.getErr().println(commandLine.getCommandSpec().qualifiedName() + ": " + msg);
      return 1;
    });
    // A bad flag is one line and a pointer to --help, not the whole usage text.
    cl.setParameterExceptionHandler((ex, args) -> {
      CommandLine c = ex.getCommandLine();
      c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + ex.getMessage() + " (see: "
          + c.getCommandSpec().qualifiedName() + " --help)");
      return 2;
    });
    return cl;
  }
}
