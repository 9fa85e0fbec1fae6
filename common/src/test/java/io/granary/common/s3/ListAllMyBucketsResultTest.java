package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListAllMyBucketsResultTest {

  @Test
  void ownerThenBuckets_withIsoDates() {
    ListAllMyBucketsResult r = new ListAllMyBucketsResult(new Owner("granary", "Granary"), List.of(
        new ListedBucket("alpha", Instant.parse("2026-11-21T14:00:00Z")),
        new ListedBucket("beta", Instant.parse("2026-11-21T14:00:01.5Z"))));

    ParsedXml x = ParsedXml.parse(r.toXml());

    assertThat(x.name()).isEqualTo("ListAllMyBucketsResult");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.childNames()).containsExactly("Owner", "Buckets");
    assertThat(x.child("Owner").childNames()).containsExactly("ID", "DisplayName");
    assertThat(x.child("Owner").text("ID")).isEqualTo("granary");
    assertThat(x.child("Owner").text("DisplayName")).isEqualTo("Granary");
    List<ParsedXml> buckets = x.child("Buckets").all("Bucket");
    assertThat(buckets).hasSize(2);
    assertThat(buckets.get(0).childNames()).containsExactly("Name", "CreationDate");
    assertThat(buckets.get(0).text("Name")).isEqualTo("alpha");
    assertThat(buckets.get(0).text("CreationDate")).isEqualTo("2026-11-21T14:00:00.000Z");
    assertThat(buckets.get(1).text("CreationDate")).isEqualTo("2026-11-21T14:00:01.500Z");
  }

  @Test
  void noBuckets_isAnEmptyBucketsElement() {
    ParsedXml x = ParsedXml.parse(new ListAllMyBucketsResult(new Owner("id", null), List.of()).toXml());

    assertThat(x.child("Owner").childNames()).containsExactly("ID");
    assertThat(x.child("Buckets").children()).isEmpty();
  }

  @Test
  void aPage_endsWithItsContinuationToken_andThePrefixAskedFor() {
    ParsedXml x = ParsedXml.parse(new ListAllMyBucketsResult(new Owner("id", null), List.of(
        new ListedBucket("train-a", Instant.parse("2026-11-21T14:00:00Z"))), "dHJhaW4tYQ", "train-").toXml());

    assertThat(x.childNames()).containsExactly("Owner", "Buckets", "ContinuationToken", "Prefix");
    assertThat(x.text("ContinuationToken")).isEqualTo("dHJhaW4tYQ");
    assertThat(x.text("Prefix")).isEqualTo("train-");
  }
}
