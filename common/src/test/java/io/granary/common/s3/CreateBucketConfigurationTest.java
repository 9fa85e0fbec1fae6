package io.granary.common.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CreateBucketConfigurationTest {

  private static Optional<String> location(String xml) {
    return CreateBucketConfiguration.parse(xml.getBytes(StandardCharsets.UTF_8)).location();
  }

  @Test
  void noBody_isNoConstraint() {
    assertThat(CreateBucketConfiguration.parse((byte[]) null).location()).isEmpty();
    assertThat(location("")).isEmpty();
    assertThat(location(" \n")).isEmpty();
    assertThat(CreateBucketConfiguration.parse(new ByteArrayInputStream(new byte[0])).location()).isEmpty();
  }

  @Test
  void sdkForm_withNamespace() {
    assertThat(location("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        + "<LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>")).contains("eu-west-1");
  }

  @Test
  void prettyPrinted_withoutNamespace() {
    assertThat(location("""
        <?xml version="1.0" encoding="UTF-8"?>
        <CreateBucketConfiguration>
           <LocationConstraint>
             us-west-2
           </LocationConstraint>
        </CreateBucketConfiguration>
        """)).contains("us-west-2");
  }

  @Test
  void emptyConfiguration_orEmptyConstraint_isNoConstraint() {
    assertThat(location("<CreateBucketConfiguration/>")).isEmpty();
    assertThat(location("<CreateBucketConfiguration><LocationConstraint/></CreateBucketConfiguration>")).isEmpty();
  }

  @Test
  void directoryBucketElements_areIgnored() {
    assertThat(location("<CreateBucketConfiguration><Location><Type>AvailabilityZone</Type><Name>usw2-az1</Name></Location>"
        + "<Bucket><Type>Directory</Type></Bucket></CreateBucketConfiguration>")).isEmpty();
  }

  @Test
  void otherDocuments_orGarbage_areMalformed() {
    for (String body : new String[] {"<Delete/>", "eu-west-1", "<CreateBucketConfiguration>"}) {
      assertThatThrownBy(() -> location(body))
          .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("MalformedXML"));
    }
  }

  @Test
  void twoConstraints_areMalformed() {
    assertThatThrownBy(() -> location("<CreateBucketConfiguration><LocationConstraint>a</LocationConstraint>"
        + "<LocationConstraint>b</LocationConstraint></CreateBucketConfiguration>"))
        .isInstanceOfSatisfying(S3ApiException.class, e -> assertThat(e.code()).isEqualTo("MalformedXML"));
  }
}
