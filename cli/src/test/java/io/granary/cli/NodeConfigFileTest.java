package io.granary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.cli.config.ConfigDefaults;
import io.granary.cli.config.ConfigFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code granary proxy|target --config FILE}: settings from the file, below flags and environment variables, and
 * every problem with the file a one-line error naming the file and key, exit 2, before the node starts.
 */
class NodeConfigFileTest {
  @TempDir
  Path dir;

  private Path file(String yaml) throws Exception {
    Path f = dir.resolve("node.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  /** Parses {@code args} as main does (config included) and returns the subcommand's object. */
  private static <T> T parse(Map<String, String> env, String... args) throws Exception {
    CommandLine cl = GranaryCommand.commandLine();
    GranaryCommand.useConfig(cl, env::get, args);
    CommandLine.ParseResult r = cl.parseArgs(args);
    @SuppressWarnings("unchecked")
    T cmd = (T) r.subcommand().commandSpec().userObject();
    return cmd;
  }

  /** Runs {@code args} as main does; returns the exit status and what was printed on stderr. */
  private static Object[] run(Map<String, String> env, String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = GranaryCommand.commandLine();
    cl.setErr(new PrintWriter(err, true));
    int exit = GranaryCommand.execute(cl, env::get, args);
    return new Object[] {exit, err.toString()};
  }

  @Test
  void target_takesEverySettingFromTheFile() throws Exception {
    Path f = file("""
        mountpath: [%s, %s]
        primary: http://localhost:51080
        port: 6001
        weight: 2.5
        head-timeout: 5s
        reserve: 1GiB
        shutdown-grace: 45s
        warm-up: false
        """.formatted(dir.resolve("a"), dir.resolve("b")));
    TargetCommand t = parse(Map.of(), "target", "--config", f.toString());
    assertThat(t.mountpaths).containsExactly(dir.resolve("a"), dir.resolve("b"));
    assertThat(t.primary).isEqualTo("http://localhost:51080");
    assertThat(t.port).isEqualTo(6001);
    assertThat(t.weight).isEqualTo("2.5");
    assertThat(t.node.headTimeout).isEqualTo(Duration.ofSeconds(5));
    assertThat(t.reserve).isEqualTo("1GiB");
    assertThat(t.node.shutdownGrace()).isEqualTo(Duration.ofSeconds(45));
    assertThat(t.warmUp).isFalse();
    assertThat(t.node.bodyTimeout).as("not in the file: the default").isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void roleSections_eachNodeTakesTheTopLevelAndItsOwnSection_whichWins() throws Exception {
    Path f = file("""
        head-timeout: 7s
        proxy:
          data: /tmp/d
          s3-redirect: true
          head-timeout: 9s
        target:
          mountpath: [%s]
          primary: http://localhost:51080
          rebalance-bandwidth: 64MiB
        """.formatted(dir.resolve("a")));
    ProxyCommand p = parse(Map.of(), "proxy", "--config", f.toString());
    assertThat(p.node.headTimeout).as("the proxy section wins").isEqualTo(Duration.ofSeconds(9));
    TargetCommand t = parse(Map.of(), "target", "--config", f.toString());
    assertThat(t.node.headTimeout).as("top level").isEqualTo(Duration.ofSeconds(7));
    assertThat(t.primary).isEqualTo("http://localhost:51080");
    // the other role's section is not this role's business (the proxy took target-only keys above); its own is checked
    assertRefused("target:\n  prot: 1\nproxy:\n  data: /tmp/d\n", "target", "unknown key 'prot'");
  }

  @Test
  void flag_winsOverTheFile() throws Exception {
    Path f = file("data: /tmp/from-file\nport: 6001\nanonymous: true\nhealth-interval: 7s\n");
    ProxyCommand p = parse(Map.of(), "proxy", "--config=" + f, "--port", "6002", "--data", "/tmp/from-flag");
    assertThat(p.port).isEqualTo(6002);
    assertThat(p.data).isEqualTo(Path.of("/tmp/from-flag"));
    assertThat(p.anonymous).isTrue();
    assertThat(p.healthInterval).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void environmentVariable_winsOverTheFile_theFileOverTheDefault() throws Exception {
    Path f = file("port: 6001\ndata: /tmp/d\ncluster-secret-file: /etc/secret\nhead-timeout: 9s\n");
    CommandLine cl = GranaryCommand.commandLine();
    CommandLine proxy = cl.getSubcommands().get("proxy");
    ConfigDefaults d = ConfigDefaults.install(proxy.getCommandSpec(), ConfigFile.load(f),
        Map.of("GRANARY_PORT", "7000", "GRANARY_CLUSTER_SECRET", "0123456789abcdef")::get);
    OptionSpec port = proxy.getCommandSpec().findOption("--port");
    // The environment is set: the provider steps aside and the option's ${env:GRANARY_PORT} default applies.
    assertThat(d.defaultValue(port)).isNull();
    assertThat(ConfigDefaults.rawDefault(port)).startsWith("${env:GRANARY_PORT");
    // GRANARY_CLUSTER_SECRET is read by the command itself: the file's secret file must not hide it.
    assertThat(d.defaultValue(proxy.getCommandSpec().findOption("--cluster-secret-file"))).isNull();
    // No environment variable for these: the file's value.
    assertThat(d.defaultValue(proxy.getCommandSpec().findOption("--data"))).isEqualTo("/tmp/d");
    assertThat(d.defaultValue(proxy.getCommandSpec().findOption("--head-timeout"))).isEqualTo("9s");
    assertThat(d.defaultValue(proxy.getCommandSpec().findOption("--body-timeout"))).isNull();
  }

  @Test
  void configFile_fromGranaryConfigVariable() throws Exception {
    Path f = file("data: /tmp/d\nport: 6003\n");
    ProxyCommand p = parse(Map.of("GRANARY_CONFIG", f.toString()), "proxy");
    assertThat(p.port).isEqualTo(6003);
  }

  private void assertRefused(String yaml, String command, String expected) throws Exception {
    Path f = file(yaml);
    Object[] r = run(Map.of(), command, "--config", f.toString(), "--host", "127.0.0.1");
    String err = (String) r[1];
    assertThat(r[0]).as(err).isEqualTo(2);
    assertThat(err).hasLineCount(1).startsWith("granary " + command + ": config " + f + ": ").contains(expected);
  }

  @Test
  void unknownKey_isRefused_namingIt() throws Exception {
    assertRefused("data: /tmp/d\nprot: 6001\n", "proxy", "unknown key 'prot'");
    // a target's setting is no proxy's
    assertRefused("data: /tmp/d\nmountpath: /x\n", "proxy", "unknown key 'mountpath'");
    // hidden and meta options are not settings
    assertRefused("data: /tmp/d\nexit-with-parent: 1\n", "proxy", "unknown key 'exit-with-parent'");
    assertRefused("data: /tmp/d\nconfig: other.yaml\n", "proxy", "unknown key 'config'");
  }

  @Test
  void malformedYaml_isRefused_withTheLine() throws Exception {
    assertRefused("data: /tmp/d\nport: [6001\n", "proxy", "malformed YAML at line");
    assertRefused("data: /tmp/d\ndata: /tmp/e\n", "proxy", "Duplicate field 'data'");
    assertRefused("- data\n- port\n", "proxy", "expected a map of settings");
  }

  @Test
  void wrongShape_isRefused_namingTheKey() throws Exception {
    assertRefused("data: /tmp/d\nport: [1, 2]\n", "proxy", "key 'port' takes one value, got a list");
    assertRefused("data: /tmp/d\nport:\n", "proxy", "key 'port': expected a value, got none");
    assertRefused("data: /tmp/d\nport: {a: 1}\n", "proxy", "key 'port': expected a value, got a map");
  }

  @Test
  void valueOfTheWrongType_isRefused_namingTheKey() throws Exception {
    assertRefused("data: /tmp/d\nport: abc\n", "proxy", "key 'port': ");
    assertRefused("data: /tmp/d\nhealth-interval: soon\n", "proxy", "key 'health-interval': ");
    assertRefused("mountpath: /tmp/m\nwarm-up: sometimes\n", "target", "key 'warm-up': ");
  }

  @Test
  void impossibleValue_isRefused_namingTheKey() throws Exception {
    assertRefused("data: " + dir.resolve("data") + "\nanonymous: true\nhead-timeout: 0s\n", "proxy",
        "key 'head-timeout': --head-timeout must be positive");
    assertRefused("data: " + dir.resolve("data") + "\nanonymous: true\nshutdown-grace: -1s\n", "proxy",
        "key 'shutdown-grace': --shutdown-grace must be 0s or more");
  }

  @Test
  void missingFile_isRefused() {
    Object[] r = run(Map.of(), "proxy", "--config", dir.resolve("absent.yaml").toString());
    assertThat(r[0]).isEqualTo(2);
    assertThat((String) r[1]).hasLineCount(1).contains("absent.yaml: no such file");
  }

  @Test
  void primary_mustBeAUrl() {
    Object[] r = run(Map.of(), "target", "--mountpath", dir.toString(), "--primary", "granary-proxy:51080");
    assertThat(r[0]).isEqualTo(2);
    assertThat((String) r[1]).hasLineCount(1).contains("is not a proxy URL");
  }

  @Test
  void keys_areTheLongOptionNames() {
    CommandLine cl = GranaryCommand.commandLine();
    assertThat(ConfigDefaults.keys(cl.getSubcommands().get("target").getCommandSpec()).keySet())
        .contains("mountpath", "primary", "shutdown-grace", "head-timeout")
        .doesNotContain("config", "help", "version", "exit-with-parent");
    assertThat(List.copyOf(ConfigDefaults.keys(cl.getSubcommands().get("proxy").getCommandSpec()).keySet()))
        .contains("data", "native-auth").doesNotContain("mountpath");
  }
}
