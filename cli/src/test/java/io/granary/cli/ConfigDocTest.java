package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.cli.config.ConfigDefaults;
import io.granary.cli.config.ConfigFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/config.md's example files list exactly the settings each node command has, with the command's own
 * defaults, and load as config files: the page cannot drift from the flags.
 */
class ConfigDocTest {
  private static final Path DOC = Path.of("..", "docs", "config.md");
  private static final Pattern LINE = Pattern.compile("^(# )?([a-z][a-z0-9-]*):(.*)$");
  private static final Pattern ENV_FALLBACK = Pattern.compile("^\\$\\{env:[A-Za-z0-9_]+(?::-(.*))?}$");

  @TempDir
  Path dir;

  /** The lines of the yaml block that starts with {@code # granary COMMAND --config}. */
  private static List<String> example(String command) throws Exception {
    List<String> lines = Files.readAllLines(DOC);
    int start = lines.indexOf("# granary " + command + " --config " + command + ".yaml");
    assertThat(start).as("docs/config.md has the %s example", command).isPositive();
    assertThat(lines.get(start - 1)).isEqualTo("```yaml");
    List<String> block = new ArrayList<>();
    for (int i = start + 1; !lines.get(i).equals("```"); i++) {
      block.add(lines.get(i));
    }
    return block;
  }

  /** The default an option shows when nothing sets it: its default without the environment, or null. */
  private static String builtInDefault(OptionSpec o) {
    String d = ConfigDefaults.rawDefault(o);
    if (d != null) {
      Matcher m = ENV_FALLBACK.matcher(d);
      if (m.matches()) {
        d = m.group(1);
      }
    }
    if (d == null && (o.type() == boolean.class || o.type() == Boolean.class) && o.arity().max() == 0) {
      return "false"; // a flag: off unless given
    }
    return d;
  }

  @ParameterizedTest
  @ValueSource(strings = {"proxy", "target"})
  void example_listsExactlyTheCommandsSettings_withTheirDefaults(String command) throws Exception {
    CommandSpec spec = GranaryCommand.commandLine().getSubcommands().get(command).getCommandSpec();
    Map<String, OptionSpec> keys = ConfigDefaults.keys(spec);
    Map<String, String> shown = new TreeMap<>(); // key -> value, null when commented out
    StringBuilder active = new StringBuilder();
    for (String line : example(command)) {
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      assertThat(shown).as("%s listed twice", m.group(2)).doesNotContainKey(m.group(2));
      shown.put(m.group(2), m.group(1) == null ? m.group(3) : null);
      if (m.group(1) == null) {
        active.append(line).append('\n');
      }
    }
    assertThat(new TreeSet<>(shown.keySet())).as("keys of the %s example", command).isEqualTo(keys.keySet());

    Path f = dir.resolve(command + ".yaml");
    Files.writeString(f, active);
    ConfigFile file = ConfigFile.load(f);
    ConfigDefaults.install(spec, file, name -> null); // every key is one the command takes
    for (Map.Entry<String, OptionSpec> e : keys.entrySet()) {
      String def = builtInDefault(e.getValue());
      List<String> value = file.values().get(e.getKey());
      if (def == null) {
        assertThat(value).as("%s has no default: commented out", e.getKey()).isNull();
      } else {
        assertThat(value).as("default of %s", e.getKey()).containsExactly(def);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"proxy", "target"})
  void example_parsesAsTheCommandsDefaults(String command) throws Exception {
    Path f = dir.resolve(command + ".yaml");
    StringBuilder active = new StringBuilder();
    example(command).stream().filter(l -> LINE.matcher(l).matches() && !l.startsWith("#"))
        .forEach(l -> active.append(l).append('\n'));
    Files.writeString(f, active);
    String[] required = command.equals("proxy") ? new String[] {"proxy", "--config", f.toString(), "--data", "/tmp/d"}
        : new String[] {"target", "--config", f.toString(), "--mountpath", "/tmp/m", "--primary", "http://p:1"};
    CommandLine cl = GranaryCommand.commandLine();
    GranaryCommand.useConfig(cl, name -> null, required);
    cl.parseArgs(required); // values of the right types
  }
}
