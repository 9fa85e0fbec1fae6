package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class DatasetTest {

  @Test
  void dlioName_padsTheIndexToTheWidthOfTheCount() {
    assertThat(Dataset.dlioName(Workload.UNET3D, "unet3d/", 7, 168)).isEqualTo("unet3d/train/img_007_of_168.npz");
    assertThat(Dataset.dlioName(Workload.RESNET50, "", 0, 1024)).isEqualTo("train/img_0000_of_1024.tfrecord");
    assertThat(Dataset.dlioName(Workload.COSMOFLOW, "c/", 9, 10)).isEqualTo("c/train/img_09_of_10.tfrecord");
  }

  @Test
  void sizes_fixedForResnet_seededAndRepeatableForUnet3d() {
    Dataset r = Dataset.dlio(Workload.RESNET50, "r/", 4, 1251, 0);
    assertThat(r.fileSize(2)).isEqualTo(1251L * 114_660);
    assertThat(r.totalBytes()).isEqualTo(4L * 1251 * 114_660);

    Dataset a = Dataset.dlio(Workload.UNET3D, "u/", 400, 1, 7);
    Dataset b = Dataset.dlio(Workload.UNET3D, "u/", 400, 1, 7);
    Dataset other = Dataset.dlio(Workload.UNET3D, "u/", 400, 1, 8);
    long sum = 0;
    int differ = 0;
    for (int f = 0; f < a.files(); f++) {
      assertThat(a.fileSize(f)).isEqualTo(b.fileSize(f)).isGreaterThanOrEqualTo(Dataset.MIN_RECORD_BYTES);
      differ += a.fileSize(f) != other.fileSize(f) ? 1 : 0;
      sum += a.fileSize(f);
    }
    assertThat(differ).isGreaterThan(390);
    // mean 146.6 MB, stdev 68.3 MB: 400 draws average within ~3 standard errors (3.4 MB each)
    assertThat(sum / 400.0 / 1e6).isBetween(136.0, 157.0);
  }

  @Test
  void namedFiles_haveUnknownSizes_andMeanSampleBoundaries() {
    Dataset d = Dataset.named(Workload.UNET3D, List.of("a", "b"), 1);
    assertThat(d.sizesKnown()).isFalse();
    assertThat(d.fileSize(0)).isEqualTo(-1);
    assertThat(d.recordSize(1, 0)).isEqualTo(146_600_628);
  }

  @Test
  void stepsPerEpoch_countsOnlyTheFilesEveryAcceleratorGets() {
    Dataset d = Dataset.dlio(Workload.RESNET50, "", 10, 800, 0);
    assertThat(d.stepsPerEpoch(1, 400)).isEqualTo(20);
    assertThat(d.stepsPerEpoch(3, 400)).isEqualTo(6); // 3 files each (the 10th is left over): 2400 samples
    assertThat(d.stepsPerEpoch(11, 400)).isZero();
  }

  @Test
  void shards_partitionTheEpochsOrder_roundRobin() {
    int[] order = {5, 3, 9, 0, 1, 7, 2};
    assertThat(Dataset.shard(order, 0, 3)).containsExactly(5, 0, 2);
    assertThat(Dataset.shard(order, 1, 3)).containsExactly(3, 1);
    assertThat(Dataset.shard(order, 2, 3)).containsExactly(9, 7);
  }

  @Test
  void order_shuffledPerEpochWhenTheWorkloadShuffles_alwaysAPermutation() {
    Dataset resnet = Dataset.dlio(Workload.RESNET50, "", 50, 1, 0);
    assertThat(resnet.order(1)).isEqualTo(resnet.order(2)).isSorted();
    Dataset unet = Dataset.dlio(Workload.UNET3D, "", 50, 1, 0);
    int[] e1 = unet.order(1);
    assertThat(e1).isEqualTo(Dataset.dlio(Workload.UNET3D, "", 50, 1, 0).order(1)).isNotEqualTo(unet.order(2));
    int[] sorted = e1.clone();
    Arrays.sort(sorted);
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      all.add(i);
    }
    assertThat(Arrays.stream(sorted).boxed().toList()).isEqualTo(all);
  }
}
