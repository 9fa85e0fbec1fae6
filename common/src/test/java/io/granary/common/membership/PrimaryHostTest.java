package io.granary.common.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** The primary's host as a DNS name: looked up before each registration, a missing name reported as such. */
class PrimaryHostTest {
  @Test
  void hostOfTheUrl_isLookedUp() throws Exception {
    PrimaryHost h = new PrimaryHost("http://localhost:51080");
    assertThat(h.host()).isEqualTo("localhost");
    assertThat(h.resolve().isLoopbackAddress()).isTrue();
  }

  @Test
  void nameWithoutRecord_isUnknownHost_notAFailedConnection() {
    // RFC 2606 reserves .invalid: it never resolves.
    PrimaryHost h = new PrimaryHost("http://granary-proxy.invalid:51080");
    assertThatThrownBy(h::resolve).isInstanceOf(UnknownHostException.class);
  }

  @Test
  void urlWithoutHost_isRefused() {
    assertThatThrownBy(() -> new PrimaryHost("granary-proxy:51080")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("granary-proxy:51080");
  }
}
