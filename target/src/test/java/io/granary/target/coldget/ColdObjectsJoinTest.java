package io.granary.target.coldget;

import static org.assertj.core.api.Assertions.assertThat;

import io.granary.backend.RemoteBuckets;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Freshness;
import io.granary.clustermap.bucket.Provider;
import io.granary.clustermap.bucket.RemoteBackend;
import io.granary.common.http.Transport;
import io.granary.common.http.client.UpstreamPool;
import io.granary.target.CacheConfig;
import io.granary.target.coldget.CacheFiller.FillResult;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.Mountpath;
import io.granary.target.storage.ObjectStore;
import io.granary.testkit.FakeGcsServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColdObjects#join} against a real GCS client and a GCS JSON API server that counts downloads: a GET that
 * looked in the store just before a fetch committed, and joins just after the fetch left, reads the committed copy
 * rather than downloading the object again (a race CI met: two downloads for two sequential GETs); one that joins
 * as a fetch fails starts a new one rather than inherit the failure.
 */
class ColdObjectsJoinTest {
  private static final String NAME = "data/shard-0001.tar";

  @TempDir
  Path dir;
  private FakeGcsServer gcs;
  private ObjectStore store;
  private RemoteBuckets remotes;
  private UpstreamPool upstream;
  private ColdObjects cold;
  private BucketProps bucket;

  @BeforeEach
  void start() throws Exception {
    gcs = FakeGcsServer.start(dir.resolve("gcs"));
    gcs.createBucket("remote");
    gcs.putObject("remote", NAME, new byte[300_000], null);
    store = ObjectStore.open("t1", List.of(Mountpath.open(dir.resolve("mp"))), 0);
    remotes = new RemoteBuckets(Duration.ofSeconds(5), 4);
    upstream = new UpstreamPool(Transport.best(), 4, 16);
    cold = new ColdObjects("t1", store, remotes, CacheConfig.DEFAULTS, upstream);
    bucket = new BucketProps(new Bucket(Provider.GCP, "remote"), "b1", ChecksumType.XXHASH64,
        Instant.parse("2026-01-01T00:00:00Z"),
        new RemoteBackend(gcs.endpoint().toString(), null, false, null, null, true), new Freshness(-1, false));
  }

  @AfterEach
  void stop() throws Exception {
    cold.close();
    upstream.close();
    remotes.close();
    store.close();
    gcs.close();
  }

  @Test
  void joinAfterTheFetchEnded_readsTheCommittedCopy_insteadOfDownloadingAgain() throws Exception {
    assertThat(store.stat(bucket, NAME)).as("what the late GET saw").isNull();
    FillResult filled = cold.fill(bucket, NAME, false).get(10, TimeUnit.SECONDS);
    assertThat(filled.outcome()).isEqualTo(FillResult.Outcome.FETCHED);
    awaitNoFetchInFlight(); // the fill's answer comes with the commit, a moment before the fetch leaves

    assertThat(cold.join(bucket, NAME, null, true, null)).isNull();
    assertThat(gcs.downloads("remote", NAME)).isEqualTo(1);
  }

  @Test
  void joinWithTheStaleCopyStillThere_fetchesAgain() throws Exception {
    cold.fill(bucket, NAME, false).get(10, TimeUnit.SECONDS);
    awaitNoFetchInFlight();
    ObjectMeta stale = store.stat(bucket, NAME);
    assertThat(stale).isNotNull();

    Fetch again = cold.join(bucket, NAME, stale, false, null);
    assertThat(again).isNotNull();
    try {
      assertThat(again.finished().get(10, TimeUnit.SECONDS).size()).isEqualTo(300_000);
    } finally {
      again.release();
    }
    assertThat(gcs.downloads("remote", NAME)).isEqualTo(2);
    assertThat(store.stat(bucket, NAME).mtime()).isGreaterThanOrEqualTo(stale.mtime());
  }

  @Test
  void joinAfterTheFetchFailed_asksTheRemoteAgain_ratherThanInheritTheFailure() throws Exception {
    String late = "late/arrival.bin";
    Fetch missing = cold.join(bucket, late, null, false, null);
    assertThat(missing).isNotNull();
    // Listeners run when the fetch fails, before it leaves the in-flight map: the narrowest window a GET can hit.
    CompletableFuture<Fetch> joinedThen = new CompletableFuture<>();
    missing.listen(() -> {
      if (missing.finished().isCompletedExceptionally() && !joinedThen.isDone()) {
        try {
          gcs.putObject("remote", late, new byte[1000], null);
          joinedThen.complete(cold.join(bucket, late, null, false, null));
        } catch (Exception e) {
          joinedThen.completeExceptionally(e);
        }
      }
    });
    try {
      assertThat(missing.finished()).failsWithin(10, TimeUnit.SECONDS);
    } finally {
      missing.release();
    }
    Fetch second = joinedThen.get(10, TimeUnit.SECONDS);
    assertThat(second).isNotNull().isNotSameAs(missing);
    try {
      assertThat(second.finished().get(10, TimeUnit.SECONDS).size()).isEqualTo(1000);
    } finally {
      second.release();
    }
  }

  private void awaitNoFetchInFlight() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (cold.fetchesInFlight() > 0) {
      assertThat(System.nanoTime()).as("fetch still in flight after 10 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
