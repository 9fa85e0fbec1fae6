package io.granary.common.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClusterQueryParamsTest {

  @Test
  void without_dropsEveryClusterParam_andKeepsTheRestInOrder() {
    assertThat(ClusterQueryParams.without("")).isEmpty();
    assertThat(ClusterQueryParams.without("provider=aws&versionId=3")).isEqualTo("provider=aws&versionId=3");
    assertThat(ClusterQueryParams.without("granary-neighbor=t1&provider=aws&Granary-Map=9&granary-neighbor-miss"
        + "&x=granary-1")).isEqualTo("provider=aws&x=granary-1");
    assertThat(ClusterQueryParams.without("granary-map=3")).isEmpty();
  }
}
