package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlainReadsTest {
  private static Map<String, List<String>> query(String... names) {
    Map<String, List<String>> q = new java.util.LinkedHashMap<>();
    for (String n : names) {
      q.put(n, List.of("v"));
    }
    return q;
  }

  @Test
  void presignedParametersOfEitherVersion_partNumberAndResponseOverrides_areAPlainRead() {
    assertThat(PlainReads.test(query())).isTrue();
    assertThat(PlainReads.test(query("X-Amz-Algorithm", "X-Amz-Credential", "x-amz-signature"))).isTrue();
    assertThat(PlainReads.test(query("AWSAccessKeyId", "Expires", "Signature"))).isTrue();
    assertThat(PlainReads.test(query("partNumber", "response-content-type"))).isTrue();
  }

  @Test
  void subResourcesUploadsListingsAndTheClustersOwnParameters_areNot() {
    for (String name : List.of("acl", "uploadId", "attributes", "list-type", "granary-map", "granary-signature",
        "versionId", "tagging")) {
      assertThat(PlainReads.test(query("X-Amz-Algorithm", name))).as(name).isFalse();
    }
  }
}
