package io.granary.proxy.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.common.s3.S3ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListBucketsHandlerTest {

  @Test
  void maxBuckets_absentIsTheLimit_andOneToTenThousandAreTaken() {
    assertThat(ListBucketsHandler.maxBuckets(null)).isEqualTo(10_000);
    assertThat(ListBucketsHandler.maxBuckets("1")).isEqualTo(1);
    assertThat(ListBucketsHandler.maxBuckets("10000")).isEqualTo(10_000);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "10001", "ten", ""})
  void maxBuckets_outOfRangeOrNotANumber_isInvalidArgument(String value) {
    assertThatThrownBy(() -> ListBucketsHandler.maxBuckets(value)).isInstanceOfSatisfying(S3ApiException.class,
        e -> assertThat(e.code()).isEqualTo("InvalidArgument"));
  }

  @Test
  void token_roundTripsTheLastName_andGarbageIsInvalidArgument() {
    assertThat(ListBucketsHandler.nameFromToken(ListBucketsHandler.tokenAfter("train-2026.v1")))
        .isEqualTo("train-2026.v1");
    assertThatThrownBy(() -> ListBucketsHandler.nameFromToken("not base64 !")).isInstanceOf(S3ApiException.class);
  }
}
