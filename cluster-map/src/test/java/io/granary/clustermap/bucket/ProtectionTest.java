package io.granary.clustermap.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.granary.clustermap.ClusterJson;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ProtectionTest {
  private static final String OLD_PROPS =
      "{\"bucket\":{\"provider\":\"ais\",\"name\":\"bkt\"},\"id\":\"id1\",\"checksum\":\"xxhash64\"}";

  @Test
  void bucketProps_metadataWithoutProtection_readsOneCopy() throws Exception {
    BucketProps p = ClusterJson.mapper().readValue(OLD_PROPS, BucketProps.class);
    assertEquals(Protection.NONE, p.protection());
    assertEquals(1, p.protection().mirrorCopies());
    assertFalse(p.protection().ecEnabled());
    assertFalse(p.protection().validateWarmGet());
  }

  @Test
  void bucketProps_partialProtection_absentFieldsTakeDefaults() throws Exception {
    String json = OLD_PROPS.substring(0, OLD_PROPS.length() - 1) + ",\"protection\":{\"mirror.copies\":3}}";
    Protection p = ClusterJson.mapper().readValue(json, BucketProps.class).protection();
    assertEquals(new Protection(3, 0, 0, Protection.DEFAULT_EC_OBJ_SIZE_LIMIT, false), p);
  }

  @Test
  void bucketProps_roundTripsProtection_underTheKeysOperatorsSet() throws Exception {
    Protection pr = new Protection(2, 4, 2, 1 << 20, true);
    BucketProps p = new BucketProps(Bucket.local("bkt"), "id1", ChecksumType.XXHASH64, Instant.EPOCH)
        .withProtection(pr);
    String json = ClusterJson.mapper().writeValueAsString(p);
    assertTrue(json.contains("\"protection\":{\"mirror.copies\":2,\"ec.data\":4,\"ec.parity\":2,"
        + "\"ec.objSizeLimit\":1048576,\"checksum.validateWarmGet\":true}"), json);
    assertEquals(p, ClusterJson.mapper().readValue(json, BucketProps.class));
  }

  @Test
  void with_appliesEveryKey() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("mirror.copies", "2");
    s.put("ec.data", "4");
    s.put("ec.parity", " 2 ");
    s.put("ec.objSizeLimit", "0");
    s.put("checksum.validateWarmGet", "TRUE");
    assertEquals(new Protection(2, 4, 2, 0, true), Protection.NONE.with(s));
  }

  @Test
  void with_ecOff_bothZero() {
    Protection on = new Protection(1, 2, 1, 100, false);
    assertFalse(on.with(Map.of("ec.data", "0", "ec.parity", "0")).ecEnabled());
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
      "mirror.copies, 0, mirror.copies must be 1",
      "mirror.copies, -1, mirror.copies must be 1",
      "mirror.copies, 65, mirror.copies must be 1",
      "mirror.copies, two, must be a whole number",
      "mirror.copies, 99999999999, must be a whole number",
      "ec.data, 4, ec.parity must be at least 1",
      "ec.parity, 2, ec.data must be at least 1",
      "ec.objSizeLimit, -5, ec.objSizeLimit must be >= 0",
      "checksum.validateWarmGet, yes, must be true or false",
      "mirror.copy, 2, unknown bucket property 'mirror.copy'",
  })
  void with_badValue_refusedWithItsKey(String key, String value, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Protection.NONE.with(Map.of(key, value)));
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void with_oneBadValue_changesNothing() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("mirror.copies", "2");
    s.put("ec.parity", "0x");
    assertThrows(IllegalArgumentException.class, () -> Protection.NONE.with(s));
    assertEquals(1, Protection.NONE.mirrorCopies());
  }

  @Test
  void with_dataPlusParityAbove256_refused() {
    assertThrows(IllegalArgumentException.class, () -> new Protection(1, 200, 57, 0, false));
  }

  @Test
  void checkFits_copiesUpToMountpaths() {
    new Protection(2, 0, 0, 0, false).checkFits(1, 2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new Protection(3, 0, 0, 0, false).checkFits(3, 2));
    assertTrue(e.getMessage().contains("mirror.copies=3"), e.getMessage());
  }

  @Test
  void checkFits_ecNeedsOneTargetMoreThanSlices() {
    new Protection(1, 4, 2, 0, false).checkFits(7, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new Protection(1, 4, 2, 0, false).checkFits(6, 1));
    assertTrue(e.getMessage().contains("needs at least 7 targets; the cluster has 6"), e.getMessage());
  }

  @Test
  void checkFits_ecOff_anyTargetCount() {
    Protection.NONE.checkFits(1, 1);
  }

  @Test
  void refusedChangeFrom_dataOrParityWithObjects_refused() {
    Protection was = new Protection(1, 2, 1, 0, false);
    assertTrue(new Protection(1, 3, 1, 0, false).refusedChangeFrom(was, true).contains("cannot change"));
    assertTrue(new Protection(1, 2, 2, 0, false).refusedChangeFrom(was, true).contains("now 2+1, asked 2+2"));
    assertTrue(Protection.NONE.refusedChangeFrom(was, true) != null);
  }

  @Test
  void refusedChangeFrom_emptyBucketOrOtherKeys_allowed() {
    Protection was = new Protection(1, 2, 1, 0, false);
    assertNull(new Protection(1, 3, 1, 0, false).refusedChangeFrom(was, false));
    assertNull(new Protection(3, 2, 1, 4096, true).refusedChangeFrom(was, true));
  }

  @Test
  void diff_namesChangedKeys() {
    assertEquals(Map.of("mirror.copies", "1 -> 2"), Protection.NONE.diff(Protection.NONE.with(
        Map.of("mirror.copies", "2"))));
  }
}
