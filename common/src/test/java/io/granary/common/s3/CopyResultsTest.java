package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** CopyObjectResult, CopyPartResult and LocationConstraint: the small one-purpose answers. */
class CopyResultsTest {
  private static final Instant T = Instant.parse("2026-11-21T14:00:00.250Z");

  @Test
  void copyObject() {
    ParsedXml x = ParsedXml.parse(new CopyObjectResult(T, "9b2cf535f27731c974343645a3985328").toXml());

    assertThat(x.name()).isEqualTo("CopyObjectResult");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.childNames()).containsExactly("LastModified", "ETag");
    assertThat(x.text("LastModified")).isEqualTo("2026-11-21T14:00:00.250Z");
    assertThat(x.text("ETag")).isEqualTo("\"9b2cf535f27731c974343645a3985328\"");
  }

  @Test
  void copyPart() {
    ParsedXml x = ParsedXml.parse(new CopyPartResult(T, "\"e\"").toXml());

    assertThat(x.name()).isEqualTo("CopyPartResult");
    assertThat(x.childNames()).containsExactly("LastModified", "ETag");
    assertThat(x.text("ETag")).isEqualTo("\"e\"");
  }

  @Test
  void locationConstraint() {
    ParsedXml x = ParsedXml.parse(new LocationConstraint("eu-west-1").toXml());

    assertThat(x.name()).isEqualTo("LocationConstraint");
    assertThat(x.namespace()).isEqualTo(S3XmlWriter.NAMESPACE);
    assertThat(x.text()).isEqualTo("eu-west-1");
  }

  @Test
  void locationConstraint_usEast1OrNone_isEmpty() {
    assertThat(ParsedXml.parse(new LocationConstraint("us-east-1").toXml()).text()).isEmpty();
    assertThat(ParsedXml.parse(new LocationConstraint(null).toXml()).text()).isEmpty();
  }
}
