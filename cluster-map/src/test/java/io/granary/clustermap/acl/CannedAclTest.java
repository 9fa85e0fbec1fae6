package io.granary.clustermap.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketProps;
import io.granary.clustermap.bucket.ChecksumType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CannedAclTest {

  @Test
  void find_supportedNames_anyCase() {
    assertEquals(CannedAcl.PRIVATE, CannedAcl.find("private").orElseThrow());
    assertEquals(CannedAcl.PUBLIC_READ, CannedAcl.find(" Public-Read").orElseThrow());
  }

  @Test
  void find_unsupportedOrUnknown_empty() {
    assertTrue(CannedAcl.find("public-read-write").isEmpty());
    assertTrue(CannedAcl.find("nonsense").isEmpty());
  }

  @Test
  void bucketProps_roundTripsAcl() throws Exception {
    BucketProps p = new BucketProps(Bucket.local("bkt"), "id1", ChecksumType.XXHASH64, Instant.EPOCH)
        .withAcl(CannedAcl.PUBLIC_READ);
    String json = ClusterJson.mapper().writeValueAsString(p);
    assertTrue(json.contains("\"acl\":\"public-read\""), json);
    assertEquals(p, ClusterJson.mapper().readValue(json, BucketProps.class));
  }

  @Test
  void bucketProps_metadataWithoutAcl_readsPrivate() throws Exception {
    String old = "{\"bucket\":{\"provider\":\"ais\",\"name\":\"bkt\"},\"id\":\"id1\",\"checksum\":\"xxhash64\"}";
    assertEquals(CannedAcl.PRIVATE, ClusterJson.mapper().readValue(old, BucketProps.class).acl());
  }
}
