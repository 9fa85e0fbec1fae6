package io.granary.cli;

import io.granary.cli.config.ConfigDefaults;
import io.granary.cli.config.ConfigException;
import io.granary.cli.config.ConfigFile;
import io.granary.cli.local.LocalCommand;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;

/** {@code granary}: the single entry point. */
@Command(name = "granary", mixinStandardHelpOptions = true, version = "granary 0.1.0",
    description = "Caching object storage for ML training data.")
public final class GranaryCommand implements Runnable {
  private static final List<Class<?>> SUBCOMMANDS = List.of(LocalCommand.class, ProxyCommand.class,
      TargetCommand.class, ClusterCommand.class, RebalanceCommand.class, BucketCommand.class, PrefetchCommand.class,
      JobCommand.class, LoadCommand.class, MountpathCommand.class, OperatorCommand.class, ScrubCommand.class);
  private static final Pattern LEADING_OPTION = Pattern.compile("^(--[a-z][a-z0-9-]*)\\b");

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
  }

  public static void main(String[] args) {
    asyncPoolOfTwoAtLeast();
    BufferPoolDefaults.apply(System.getProperties(), Runtime.getRuntime().availableProcessors());
    // A node waits for its primary's DNS name to appear (a Kubernetes Service): do not remember misses for 10 s.
    java.security.Security.setProperty("networkaddress.cache.negative.ttl", "1");
    System.exit(execute(commandLine(args.length == 0 ? null : args[0]), System::getenv, args));
  }

  /**
   * Runs {@code args} as {@link #main} does, config file included: a node command's {@code --config FILE} (or
   * GRANARY_CONFIG) is read before parsing, since picocli applies defaults first. A config file that cannot be used
   * is one line and exit 2, like a bad flag.
   */
  /**
   * On one or two CPUs (a small pod, this project's CI machine) the JDK's common pool has parallelism 1, and then
   * CompletableFuture runs every default-executor async stage on a new thread; the JDK HttpClient's sendAsync hands
   * each answer on that way, so every control request (health checks, neighbor lookups, a joining target's ~900
   * warm-up requests) started and ended a thread (JFR: 928 in a target's first minute). With parallelism 2 they run on
   * the common pool. Set before anything touches CompletableFuture; an explicit setting is kept.
   */
  static void asyncPoolOfTwoAtLeast() {
    String key = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(key) == null && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(key, "2");
    }
  }

  static int execute(CommandLine cl, UnaryOperator<String> env, String... args) {
    try {
      useConfig(cl, env, args);
    } catch (ConfigException e) {
      cl.getErr().println("granary " + args[0] + ": " + e.getMessage());
      return 2;
    }
    return cl.execute(args);
  }

  /** Installs the config file named by {@code args} (if any) as the default provider of their node command. */
  static void useConfig(CommandLine cl, UnaryOperator<String> env, String... args) throws ConfigException {
    if (args.length == 0) {
      return;
    }
    CommandLine sub = cl.getSubcommands().get(args[0]);
    if (sub == null || sub.getCommandSpec().findOption("--config") == null) {
      return;
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    String path = ConfigDefaults.pathFrom(rest, env);
    if (path != null) {
      ConfigDefaults.install(sub.getCommandSpec(), ConfigFile.load(Path.of(path)).forRole(sub.getCommandSpec().name()),
          env);
    }
  }

  /** The command line with Granary's error handling: one-line messages, no stack traces, exit code 1. */
  public static CommandLine commandLine() {
    return commandLine(null);
  }

  /**
   * As above, with only subcommand {@code first} when the arguments start with one: picocli builds the model of
   * every command it is given, about 0.1 s of CPU for the whole tree at each start of a node, and
   * {@code granary local} and the tests start hundreds.
   */
  static CommandLine commandLine(String first) {
    CommandLine cl = new CommandLine(new GranaryCommand());
    boolean named = SUBCOMMANDS.stream().anyMatch(c -> nameOf(c).equals(first));
    for (Class<?> c : SUBCOMMANDS) {
      if (!named || nameOf(c).equals(first)) {
        cl.addSubcommand(c);
      }
    }
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      String msg = ex.getMessage() == null ? ex.toString() : ex.getMessage();
      // An impossible value the config file gave: name the file and key, and exit as for a bad flag.
      String origin = configOrigin(commandLine, commandLine.getParseResult(), msg);
      commandLine.getErr().println(commandLine.getCommandSpec().qualifiedName() + ": "
          + (origin == null ? msg : origin + ": " + msg));
      return origin == null ? 1 : 2;
    });
    // A bad flag is one line and a pointer to --help, not the whole usage text.
    cl.setParameterExceptionHandler((ex, args) -> {
      CommandLine c = ex.getCommandLine();
      String origin = c.getCommandSpec().defaultValueProvider() instanceof ConfigDefaults config
          && ex.getArgSpec() instanceof OptionSpec o ? config.origin(o, ex.getValue()) : null;
      c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + (origin == null ? "" : origin + ": ")
          + ex.getMessage() + " (see: " + c.getCommandSpec().qualifiedName() + " --help)");
      return 2;
    });
    return cl;
  }

  private static String nameOf(Class<?> subcommand) {
    return subcommand.getAnnotation(Command.class).name();
  }

  /** The config file and key behind an error message that starts with an option's name, when the file set it. */
  private static String configOrigin(CommandLine cl, CommandLine.ParseResult parsed, String msg) {
    Matcher m = LEADING_OPTION.matcher(msg);
    if (!m.find() || !(cl.getCommandSpec().defaultValueProvider() instanceof ConfigDefaults config)) {
      return null;
    }
    OptionSpec o = cl.getCommandSpec().findOption(m.group(1));
    if (o == null || parsed != null && parsed.hasMatchedOption(o)) {
      return null; // given on the command line: the flag is to blame
    }
    return config.origin(o, null);
  }
}
