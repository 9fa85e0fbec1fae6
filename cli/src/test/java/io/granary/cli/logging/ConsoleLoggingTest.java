package io.granary.cli.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** How every process of the jar logs: console lines, io.granary at GRANARY_LOG_LEVEL, the rest at WARN. */
class ConsoleLoggingTest {

  @Test
  void isFoundByLogback_asAConfiguratorService() {
    assertThat(ServiceLoader.load(Configurator.class).stream().map(ServiceLoader.Provider::type))
        .contains(ConsoleLogging.class);
  }

  @Test
  void configure_logsGranaryAtInfo_andEverythingElseAtWarn_toTheConsole() {
    LoggerContext context = new LoggerContext();
    ConsoleLogging logging = new ConsoleLogging();
    logging.setContext(context);

    assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.netty.channel").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.granary.target.TargetNode").getEffectiveLevel())
        .isEqualTo(ConsoleLogging.level(System.getProperty(ConsoleLogging.LEVEL, System.getenv(ConsoleLogging.LEVEL))));
    ConsoleAppender<?> console = (ConsoleAppender<?>) root.getAppender("console");
    assertThat(console.isStarted()).isTrue();
    PatternLayoutEncoder encoder = (PatternLayoutEncoder) console.getEncoder();
    LoggingEvent event = new LoggingEvent(ConsoleLoggingTest.class.getName(),
        context.getLogger("io.granary.target.TargetNode"), Level.INFO, "node={} target serving", null,
        new Object[] {"t1"});
    assertThat(new String(encoder.encode(event), StandardCharsets.UTF_8))
        .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  TargetNode - node=t1 target serving\\R");
    context.stop();
  }

  @Test
  void configure_dropsTheRehearsalTargetsLinesBelowWarn_andKeepsEveryOtherNodes() {
    LoggerContext context = new LoggerContext();
    ConsoleLogging logging = new ConsoleLogging();
    logging.setContext(context);
    logging.configure(context);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen =
        new ch.qos.logback.core.read.ListAppender<>();
    seen.setContext(context);
    seen.start();
    ch.qos.logback.classic.Logger log = context.getLogger("io.granary.common.membership.ClusterMetadataHolder");
    log.setLevel(Level.INFO);
    log.addAppender(seen);
    String rehearsal = io.granary.target.JoinRehearsal.NODE_ID_PREFIX + "a";

    log.info("node={} cluster map v{}", rehearsal, 3);
    log.warn("node={} metadata listener failed", rehearsal);
    log.info("node={} cluster map v{}", "t1", 3);
    log.info("node={} join rehearsed: {}", "t1", "1 rebalances");
    log.info("no node named");

    assertThat(seen.list).extracting(e -> e.getFormattedMessage()).containsExactly(
        "node=" + rehearsal + " metadata listener failed",
        "node=t1 cluster map v3", "node=t1 join rehearsed: 1 rebalances", "no node named");
    context.stop();
  }

  @Test
  void level_isTheNamedOne_orInfoWhenUnsetOrUnknown() {
    assertThat(ConsoleLogging.level("debug")).isEqualTo(Level.DEBUG);
    assertThat(ConsoleLogging.level(" WARN ")).isEqualTo(Level.WARN);
    assertThat(ConsoleLogging.level(null)).isEqualTo(Level.INFO);
    assertThat(ConsoleLogging.level("")).isEqualTo(Level.INFO);
    assertThat(ConsoleLogging.level("loud")).isEqualTo(Level.INFO);
  }
}
