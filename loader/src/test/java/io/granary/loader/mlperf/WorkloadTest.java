package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The DLIO H100 closed-division parameters, as in mlcommons/storage configs/dlio/workload/*_h100.yaml. */
class WorkloadTest {

  @ParameterizedTest
  @CsvSource({
      "resnet50,  tfrecord, 114660,    0,        1024,   1251, 400, 8, 0.224,  0.90, false",
      "unet3d,    npz,      146600628, 68341808, 168,    1,    7,   4, 0.323,  0.90, true",
      "cosmoflow, tfrecord, 2828486,   71311,    524288, 1,    1,   4, 0.0035, 0.70, true"})
  void table_matchesTheDlioConfigs(String name, String format, long record, long stdev, int files, int spf, int batch,
      int threads, double compute, double au, boolean shuffle) {
    Workload w = Workload.parse(name);
    assertThat(w.wireName()).isEqualTo(name);
    assertThat(w.format()).isEqualTo(format);
    assertThat(w.recordBytes()).isEqualTo(record);
    assertThat(w.recordStdevBytes()).isEqualTo(stdev);
    assertThat(w.files()).isEqualTo(files);
    assertThat(w.samplesPerFile()).isEqualTo(spf);
    assertThat(w.batch()).isEqualTo(batch);
    assertThat(w.readThreads()).isEqualTo(threads);
    assertThat(w.computeSeconds()).isEqualTo(compute);
    assertThat(w.auThreshold()).isEqualTo(au);
    assertThat(w.shuffle()).isEqualTo(shuffle);
  }

  @Test
  void bandwidthPerAccelerator_matchesTheRuleOfThumb() {
    // peers.md §2.6: AU x batch x sample / compute ~ 184 MB/s (ResNet-50), 2.86 GB/s (U-Net), 566 MB/s (CosmoFlow)
    assertThat(perAccelerator(Workload.RESNET50) / 1e6).isBetween(183.0, 185.0);
    assertThat(perAccelerator(Workload.UNET3D) / 1e9).isBetween(2.85, 2.87);
    assertThat(perAccelerator(Workload.COSMOFLOW) / 1e6).isBetween(565.0, 567.0);
  }

  @Test
  void parse_caseAndBlanks_unknownIsOneLineNamingTheFlag() {
    assertThat(Workload.parse(" ResNet50 ")).isEqualTo(Workload.RESNET50);
    assertThatThrownBy(() -> Workload.parse("bert"))
        .hasMessage("--workload: unknown workload 'bert': use resnet50, unet3d or cosmoflow");
  }

  private static double perAccelerator(Workload w) {
    return w.auThreshold() * w.batch() * w.recordBytes() / w.computeSeconds();
  }
}
