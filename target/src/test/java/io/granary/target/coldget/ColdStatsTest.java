package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.clustermap.bucket.Provider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ColdStatsTest {
  private final ColdStats stats = new ColdStats();

  @Test
  void counts_areKeptPerProvider() {
    stats.fetched(Provider.AWS, 100, 1);
    stats.fetched(Provider.AWS, 50, 1);
    stats.fetched(Provider.GCP, 7, 1);
    stats.hit(Provider.AWS);
    stats.miss(Provider.GCP);
    stats.joined(Provider.GCP);
    stats.revalidated(Provider.AWS, true);
    stats.revalidated(Provider.AWS, false);
    stats.checksumError(Provider.GCP);
    stats.failed(Provider.AWS);

    assertThat(stats.fetches(Provider.AWS)).isEqualTo(2);
    assertThat(stats.bytes(Provider.AWS)).isEqualTo(150);
    assertThat(stats.fetches(Provider.GCP)).isEqualTo(1);
    assertThat(stats.bytes(Provider.GCP)).isEqualTo(7);
    assertThat(stats.hits(Provider.AWS)).isEqualTo(1);
    assertThat(stats.hits(Provider.GCP)).isZero();
    assertThat(stats.misses(Provider.GCP)).isEqualTo(1);
    assertThat(stats.coalesced(Provider.GCP)).isEqualTo(1);
    assertThat(stats.revalidations(Provider.AWS)).isEqualTo(2);
    assertThat(stats.versionChanges(Provider.AWS)).isEqualTo(1);
    assertThat(stats.checksumErrors(Provider.GCP)).isEqualTo(1);
    assertThat(stats.failures(Provider.AWS)).isEqualTo(1);
    assertThat(stats.failures(Provider.GCP)).isZero();
  }

  @Test
  void timings_goToTheRegisteredSink_onlyAfterRegistration() {
    List<String> seen = new ArrayList<>();
    stats.firstByte(Provider.AWS, 5); // nothing registered yet: dropped
    stats.timeWith(new ColdStats.Timings() {
      @Override
      public void firstByte(Provider provider, long nanos) {
        seen.add("first " + provider.wireName() + " " + nanos);
      }

      @Override
      public void fetched(Provider provider, long nanos) {
        seen.add("fetched " + provider.wireName() + " " + nanos);
      }
    });
    stats.firstByte(Provider.GCP, 10);
    stats.fetched(Provider.GCP, 1, 30);
    assertThat(seen).containsExactly("first gcp 10", "fetched gcp 30");
  }
}
