package io.granary.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * Every process of the {@code granary} jar logs one line per event to the console: {@code io.granary} at
 * {@code GRANARY_LOG_LEVEL} (a system property or an environment variable; INFO by default), Netty and everything
 * else at WARN. Configured in code rather than by a {@code logback.xml}: parsing one (an XML parser and logback's
 * model processing) took about 0.5 s of every start, a node's as well as a one-line command's. A configuration file
 * still wins: {@code -Dlogback.configurationFile=...}, or a {@code logback-test.xml} on the classpath. The throwaway
 * targets of a starting target's join rehearsal log only warnings and errors ({@link RehearsalLogFilter}).
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class ConsoleLogging extends ContextAwareBase implements Configurator {
  /** The level of {@code io.granary}'s loggers. */
  public static final String LEVEL = "GRANARY_LOG_LEVEL";
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || ConsoleLogging.class.getClassLoader().getResource("logback-test.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY; // logback's own configurator reads that file
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("console");
    console.setEncoder(encoder);
    console.start();
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(console);
    context.getLogger("io.netty").setLevel(Level.WARN);
    context.getLogger("io.granary").setLevel(level(System.getProperty(LEVEL, System.getenv(LEVEL))));
    RehearsalLogFilter rehearsal = new RehearsalLogFilter();
    rehearsal.setContext(context);
    rehearsal.start();
    context.addTurboFilter(rehearsal);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** {@code value} as a level; INFO when unset or not a level's name. */
  static Level level(String value) {
    return value == null || value.isBlank() ? Level.INFO : Level.toLevel(value.strip(), Level.INFO);
  }
}
