package io.granary.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A target added to a local cluster can override the cluster's target arguments: picocli refuses an option twice. */
class LocalClusterTargetArgsTest {
  @Test
  void anArgumentGivenAgain_replacesTheClustersOne_andTheOthersStay() {
    List<String> cluster = List.of("--warm-up=false", "--capacity=1GiB", "--rebalance-bandwidth", "0");

    assertThat(LocalCluster.withoutOverridden(cluster, List.of("--warm-up=true")))
        .containsExactly("--capacity=1GiB", "--rebalance-bandwidth", "0");
    assertThat(LocalCluster.withoutOverridden(cluster, List.of("--warm-up", "true")))
        .containsExactly("--capacity=1GiB", "--rebalance-bandwidth", "0");
    assertThat(LocalCluster.withoutOverridden(cluster, List.of())).isEqualTo(cluster);
    assertThat(LocalCluster.withoutOverridden(cluster, List.of("--weight=2", "true"))).isEqualTo(cluster);
  }
}
