package io.granary.proxy.s3;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.clustermap.Node;
import io.granary.clustermap.NodeRole;
import io.granary.clustermap.NodeState;
import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.control.ControlClient;
import io.granary.common.error.ApiException;
import io.granary.common.membership.ClusterMetadataHolder;
import io.granary.common.membership.MetadataFiles;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What unsigned S3 requests may do, decided from bucket metadata alone (objects are left to their target). */
class AnonymousAccessTest {
  private static final Node SELF = new Node("p1", NodeRole.PROXY, "http://127.0.0.1:51080", NodeState.ACTIVE, 1);
  @TempDir
  Path dir;
  private ScheduledExecutorService scheduler;
  private ExecutorService http;
  private ClusterMetadataHolder holder;

  @BeforeEach
  void setUp() throws IOException {
    scheduler = Executors.newSingleThreadScheduledExecutor();
    http = Executors.newFixedThreadPool(1);
    holder = new ClusterMetadataHolder("p1", new MetadataFiles(List.of(dir)));
    ClusterAuthority authority = new ClusterAuthority(holder,
        new MetadataPusher("p1", new ControlClient(Duration.ofMillis(500), http), scheduler), Clock.systemUTC());
    authority.bootstrap(SELF);
    authority.createBucket(Bucket.local("pub"), ChecksumType.XXHASH64, null, null, CannedAcl.PUBLIC_READ);
    authority.createBucket(Bucket.local("priv"), ChecksumType.XXHASH64);
    authority.createBucket(new Bucket(Provider.AWS, "remote"), ChecksumType.MD5, null, null);
  }

  @AfterEach
  void tearDown() {
    scheduler.shutdownNow();
    http.shutdownNow();
  }

  private static Map<String, List<String>> q(String... names) {
    java.util.Map<String, List<String>> m = new java.util.LinkedHashMap<>();
    for (String n : names) {
      m.put(n, List.of(""));
    }
    return m;
  }

  private void assertDenied(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(ApiException.class, e -> {
      org.assertj.core.api.Assertions.assertThat(e.status().code()).isEqualTo(403);
      org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo("AccessDenied");
    });
  }

  @Test
  void checkBucket_listAndHeadOfPublicReadBucket_pass() {
    assertThatCode(() -> AnonymousAccess.checkBucket(holder, "pub", HttpMethod.GET, q())).doesNotThrowAnyException();
    assertThatCode(() -> AnonymousAccess.checkBucket(holder, "pub", HttpMethod.GET,
        q("list-type", "prefix", "delimiter", "continuation-token", "encoding-type"))).doesNotThrowAnyException();
    assertThatCode(() -> AnonymousAccess.checkBucket(holder, "pub", HttpMethod.HEAD, q()))
        .doesNotThrowAnyException();
  }

  @Test
  void checkBucket_privateMissingOrNonRead_is403() {
    assertDenied(() -> AnonymousAccess.checkBucket(holder, "priv", HttpMethod.GET, q("list-type")));
    assertDenied(() -> AnonymousAccess.checkBucket(holder, "missing", HttpMethod.GET, q()));
    for (String sub : List.of("acl", "uploads", "location", "versioning", "policy")) {
      assertDenied(() -> AnonymousAccess.checkBucket(holder, "pub", HttpMethod.GET, q(sub)));
    }
    for (HttpMethod m : List.of(HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.POST)) {
      assertDenied(() -> AnonymousAccess.checkBucket(holder, "pub", m, q()));
    }
    assertDenied(() -> AnonymousAccess.checkBucket(holder, "pub", HttpMethod.PUT, q("acl")));
  }

  @Test
  void checkObject_plainReadInLocalBucket_passes_forTheTargetToDecide() {
    for (String bucket : List.of("pub", "priv")) {
      assertThatCode(() -> AnonymousAccess.checkObject(holder, bucket, HttpMethod.GET, q()))
          .doesNotThrowAnyException();
      assertThatCode(() -> AnonymousAccess.checkObject(holder, bucket, HttpMethod.HEAD, q("partNumber")))
          .doesNotThrowAnyException();
    }
  }

  @Test
  void checkObject_getObjectAttributesInLocalBucket_passes_forTheTargetToDecide() {
    for (String bucket : List.of("pub", "priv")) {
      assertThatCode(() -> AnonymousAccess.checkObject(holder, bucket, HttpMethod.GET, q("attributes")))
          .doesNotThrowAnyException();
      assertThatCode(() -> AnonymousAccess.checkObject(holder, bucket, HttpMethod.GET, q("attributes", "x-id")))
          .doesNotThrowAnyException();
    }
  }

  @Test
  void checkObject_attributesOtherThanAPlainGet_orOnARemoteBucket_are403() {
    for (HttpMethod m : List.of(HttpMethod.HEAD, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.POST)) {
      assertDenied(() -> AnonymousAccess.checkObject(holder, "pub", m, q("attributes")));
    }
    for (String other : List.of("acl", "uploadId", "partNumber", "response-content-type")) {
      assertDenied(() -> AnonymousAccess.checkObject(holder, "pub", HttpMethod.GET, q("attributes", other)));
    }
    assertDenied(() -> AnonymousAccess.checkObject(holder, "remote", HttpMethod.GET, q("attributes")));
    assertDenied(() -> AnonymousAccess.checkObject(holder, "missing", HttpMethod.GET, q("attributes")));
  }

  @Test
  void checkObject_writesSubresourcesRemoteOrMissingBuckets_are403() {
    for (HttpMethod m : List.of(HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.POST)) {
      assertDenied(() -> AnonymousAccess.checkObject(holder, "pub", m, q()));
    }
    for (String sub : List.of("acl", "uploadId", "uploads", "tagging")) {
      assertDenied(() -> AnonymousAccess.checkObject(holder, "pub", HttpMethod.GET, q(sub)));
    }
    assertDenied(() -> AnonymousAccess.checkObject(holder, "remote", HttpMethod.GET, q()));
    assertDenied(() -> AnonymousAccess.checkObject(holder, "missing", HttpMethod.GET, q()));
  }

  @Test
  void checkObject_responseOverrides_are400InvalidRequest_asOnS3() {
    assertThatThrownBy(() -> AnonymousAccess.checkObject(holder, "pub", HttpMethod.GET, q("response-content-type")))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          org.assertj.core.api.Assertions.assertThat(e.status().code()).isEqualTo(400);
          org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo("InvalidRequest");
        });
  }
}
