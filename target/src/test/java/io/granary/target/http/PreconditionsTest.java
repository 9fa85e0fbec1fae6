package io.granary.target.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.error.PreconditionFailedException;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Date;
import org.junit.jupiter.api.Test;

class PreconditionsTest {
  private static final String ETAG = "9a0364b9e99bb480dd25e1f0284c8555";
  private static final long MTIME = 1_790_000_000_500L; // .5 s into a second
  private static final String AT = DateFormatter.format(new Date(MTIME));
  private static final String BEFORE = DateFormatter.format(new Date(MTIME - 10_000));
  private static final String AFTER = DateFormatter.format(new Date(MTIME + 10_000));

  private static Preconditions.Outcome eval(String... kv) {
    HttpHeaders h = new DefaultHttpHeaders();
    for (int i = 0; i < kv.length; i += 2) {
      h.add(kv[i], kv[i + 1]);
    }
    return Preconditions.evaluate(h, ETAG, MTIME);
  }

  @Test
  void evaluate_noConditions_proceeds() {
    assertThat(eval()).isEqualTo(Preconditions.Outcome.PROCEED);
  }

  @Test
  void evaluate_ifMatch_matchingQuotedWeakOrStar_proceeds_otherwise412() {
    assertThat(eval("If-Match", "\"" + ETAG + "\"")).isEqualTo(Preconditions.Outcome.PROCEED);
    assertThat(eval("If-Match", "\"x\", W/\"" + ETAG + "\"")).isEqualTo(Preconditions.Outcome.PROCEED);
    assertThat(eval("If-Match", "*")).isEqualTo(Preconditions.Outcome.PROCEED);
    assertThatThrownBy(() -> eval("If-Match", "\"other\"")).isInstanceOf(PreconditionFailedException.class);
  }

  @Test
  void evaluate_ifNoneMatch_matching_is304() {
    assertThat(eval("If-None-Match", "\"" + ETAG + "\"")).isEqualTo(Preconditions.Outcome.NOT_MODIFIED);
    assertThat(eval("If-None-Match", "\"other\"")).isEqualTo(Preconditions.Outcome.PROCEED);
  }

  @Test
  void evaluate_ifModifiedSince_atOrAfterMtime_is304_beforeProceeds() {
    assertThat(eval("If-Modified-Since", AT)).isEqualTo(Preconditions.Outcome.NOT_MODIFIED);
    assertThat(eval("If-Modified-Since", AFTER)).isEqualTo(Preconditions.Outcome.NOT_MODIFIED);
    assertThat(eval("If-Modified-Since", BEFORE)).isEqualTo(Preconditions.Outcome.PROCEED);
  }

  @Test
  void evaluate_ifUnmodifiedSince_beforeMtime_is412() {
    assertThat(eval("If-Unmodified-Since", AT)).isEqualTo(Preconditions.Outcome.PROCEED);
    assertThatThrownBy(() -> eval("If-Unmodified-Since", BEFORE)).isInstanceOf(PreconditionFailedException.class);
  }

  @Test
  void evaluate_s3Pairs_etagConditionDecides() {
    // If-Match true, If-Unmodified-Since false: 200.
    assertThat(eval("If-Match", ETAG, "If-Unmodified-Since", BEFORE)).isEqualTo(Preconditions.Outcome.PROCEED);
    // If-None-Match false (the ETag matches), If-Modified-Since true: 304.
    assertThat(eval("If-None-Match", ETAG, "If-Modified-Since", BEFORE)).isEqualTo(Preconditions.Outcome.NOT_MODIFIED);
  }

  @Test
  void evaluate_unparseableDate_isIgnored() {
    assertThat(eval("If-Modified-Since", "yesterday")).isEqualTo(Preconditions.Outcome.PROCEED);
    assertThat(eval("If-Unmodified-Since", "garbage")).isEqualTo(Preconditions.Outcome.PROCEED);
  }
}
