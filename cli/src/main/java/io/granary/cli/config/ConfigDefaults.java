package io.granary.cli.config;

import java.lang.reflect.AnnotatedElement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * Supplies a command's defaults from its config file, below flags and environment variables: a flag given on the
 * command line wins (picocli applies it over any default), then the option's environment variable (when it is set
 * this provider steps aside and the option's own {@code ${env:..}} default applies), then the file, then the
 * built-in default. Keys are the long option names without their dashes; hidden options, {@code --help},
 * {@code --version} and {@code --config} itself have none.
 */
public final class ConfigDefaults implements CommandLine.IDefaultValueProvider {
  /** Options whose environment variable the command reads in its own code rather than through a default. */
  private static final Map<String, String> ENV_IN_CODE = Map.of("cluster-secret-file", "GRANARY_CLUSTER_SECRET");
  private static final Pattern ENV_DEFAULT = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)");
  static final String CONFIG_OPTION = "--config";
  private static final String NO_DEFAULT = "__no_default_value__"; // picocli's @Option(defaultValue) when not given

  private final ConfigFile file;
  private final UnaryOperator<String> env;
  private final Set<String> supplied = ConcurrentHashMap.newKeySet(); // keys whose value this provider gave

  private ConfigDefaults(ConfigFile file, UnaryOperator<String> env) {
    this.file = file;
    this.env = env;
  }

  /**
   * Checks {@code file}'s keys against {@code spec}'s options and makes it the command's default provider.
   *
   * @param env the environment (System::getenv; tests pass their own)
   * @throws ConfigException naming the first key the command does not take, or a list for a single-value option
   */
  public static ConfigDefaults install(CommandSpec spec, ConfigFile file, UnaryOperator<String> env)
      throws ConfigException {
    Map<String, OptionSpec> keys = keys(spec);
    for (Map.Entry<String, List<String>> e : file.values().entrySet()) {
      OptionSpec o = keys.get(e.getKey());
      if (o == null) {
        throw new ConfigException("config " + file.path() + ": unknown key '" + e.getKey() + "': granary "
            + spec.name() + " has no option --" + e.getKey() + " (see docs/config.md)");
      }
      if (e.getValue().size() > 1 && (!o.isMultiValue() || o.splitRegex().isEmpty())) {
        throw new ConfigException("config " + file.path() + ": key '" + e.getKey() + "' takes one value, got a list");
      }
    }
    ConfigDefaults provider = new ConfigDefaults(file, env);
    spec.defaultValueProvider(provider);
    return provider;
  }

  /**
   * The config file's path from the arguments of a node command ({@code --config FILE} or {@code --config=FILE}),
   * else from GRANARY_CONFIG, else null. It must be known before picocli parses: defaults are applied first.
   */
  public static String pathFrom(List<String> args, UnaryOperator<String> env) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        break;
      }
      if (a.equals(CONFIG_OPTION) && i + 1 < args.size()) {
        return args.get(i + 1);
      }
      if (a.startsWith(CONFIG_OPTION + "=")) {
        return a.substring(CONFIG_OPTION.length() + 1);
      }
    }
    String fromEnv = env.apply("GRANARY_CONFIG");
    return fromEnv == null || fromEnv.isBlank() ? null : fromEnv;
  }

  /** The keys {@code spec} takes in a config file, sorted, each with its option. */
  public static Map<String, OptionSpec> keys(CommandSpec spec) {
    Map<String, OptionSpec> keys = new TreeMap<>();
    for (OptionSpec o : spec.options()) {
      if (o.hidden() || o.usageHelp() || o.versionHelp() || o.longestName().equals(CONFIG_OPTION)) {
        continue;
      }
      keys.put(key(o), o);
    }
    return keys;
  }

  static String key(OptionSpec o) {
    return o.longestName().replaceFirst("^--?", "");
  }

  /** The environment variable that sets {@code o}, or null. */
  static String envVariable(OptionSpec o) {
    String inCode = ENV_IN_CODE.get(key(o));
    if (inCode != null) {
      return inCode;
    }
    String d = rawDefault(o);
    if (d == null) {
      return null;
    }
    Matcher m = ENV_DEFAULT.matcher(d);
    return m.find() ? m.group(1) : null;
  }

  /**
   * {@code o}'s default as written in its annotation, before picocli resolves {@code ${env:..}} in it (picocli keeps
   * that text private), or null when it has none.
   */
  public static String rawDefault(OptionSpec o) {
    if (o.userObject() instanceof AnnotatedElement e && e.getAnnotation(Option.class) != null) {
      String d = e.getAnnotation(Option.class).defaultValue();
      return d.equals(NO_DEFAULT) ? null : d;
    }
    return o.defaultValue();
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec o)) {
      return null;
    }
    String key = key(o);
    List<String> v = file.values().get(key);
    if (v == null) {
      return null;
    }
    String var = envVariable(o);
    if (var != null && env.apply(var) != null) {
      return null; // the environment wins over the file: the option's ${env:..} default applies
    }
    supplied.add(key);
    return String.join(o.splitRegex().isEmpty() ? "," : unquoteRegex(o.splitRegex()), v);
  }

  /**
   * {@code config FILE: key 'K'} when this file gave {@code o} its value (and, with {@code value} not null, that
   * value is the file's), so that an error about the value names where to fix it; else null.
   */
  public String origin(OptionSpec o, String value) {
    String key = key(o);
    if (!supplied.contains(key)) {
      return null;
    }
    List<String> v = file.values().get(key);
    if (value != null && !v.contains(value) && !String.join(",", v).equals(value)) {
      return null;
    }
    return "config " + file.path() + ": key '" + key + "'";
  }

  public ConfigFile file() {
    return file;
  }

  private static String unquoteRegex(String regex) {
    return regex.replace("\\", "");
  }
}
