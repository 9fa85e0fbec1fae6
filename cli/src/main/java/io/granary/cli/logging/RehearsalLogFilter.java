package io.granary.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import io.granary.target.JoinRehearsal;
import org.slf4j.Marker;

/**
 * Drops what the throwaway targets of a join rehearsal ({@link JoinRehearsal}) log below WARN: every line of this
 * code base names its node first ({@code node={} ...}), and theirs would be some forty lines of map versions and
 * rebalance walks at each start, about nodes that are gone a few seconds later. The joining target logs one line for
 * the whole rehearsal; warnings and errors of the throwaway targets still show.
 */
final class RehearsalLogFilter extends TurboFilter {
  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level != null && !level.isGreaterOrEqual(Level.WARN) && params != null && params.length > 0
        && params[0] instanceof String node && node.startsWith(JoinRehearsal.NODE_ID_PREFIX)) {
      return FilterReply.DENY;
    }
    return FilterReply.NEUTRAL;
  }
}
