package io.granary.loader.mlperf;

import java.util.Locale;

/**
 * The MLPerf Storage training workloads as DLIO runs them on an H100 (closed division,
 * {@code mlcommons/storage configs/dlio/workload/*_h100.yaml}): dataset shape, batch, reader threads, the emulated
 * compute time per batch and the accelerator-utilisation threshold a run must reach.
 *
 * <p>ResNet-50's record is 114,660.07 bytes in the config; we use 114,660 (sizes are whole bytes).
 */
public enum Workload {
  RESNET50("resnet50", "tfrecord", 114_660, 0, 1_024, 1_251, 400, 8, 0.224, 0.90, false),
  UNET3D("unet3d", "npz", 146_600_628, 68_341_808, 168, 1, 7, 4, 0.323, 0.90, true),
  COSMOFLOW("cosmoflow", "tfrecord", 2_828_486, 71_311, 524_288, 1, 1, 4, 0.0035, 0.70, true);

  private final String wireName;
  private final String format;
  private final long recordBytes;
  private final long recordStdevBytes;
  private final int files;
  private final int samplesPerFile;
  private final int batch;
  private final int readThreads;
  private final double computeSeconds;
  private final double auThreshold;
  private final boolean shuffle;

  Workload(String wireName, String format, long recordBytes, long recordStdevBytes, int files, int samplesPerFile,
      int batch, int readThreads, double computeSeconds, double auThreshold, boolean shuffle) {
    this.wireName = wireName;
    this.format = format;
    this.recordBytes = recordBytes;
    this.recordStdevBytes = recordStdevBytes;
    this.files = files;
    this.samplesPerFile = samplesPerFile;
    this.batch = batch;
    this.readThreads = readThreads;
    this.computeSeconds = computeSeconds;
    this.auThreshold = auThreshold;
    this.shuffle = shuffle;
  }

  public static Workload parse(String s) {
    for (Workload w : values()) {
      if (w.wireName.equals(s == null ? "" : s.strip().toLowerCase(Locale.ROOT))) {
        return w;
      }
    }
    throw new IllegalArgumentException("--workload: unknown workload '" + s + "': use resnet50, unet3d or cosmoflow");
  }

  /** {@code resnet50}, {@code unet3d}, {@code cosmoflow}. */
  public String wireName() {
    return wireName;
  }

  /** The file extension DLIO gives the dataset ({@code tfrecord}, {@code npz}). */
  public String format() {
    return format;
  }

  /** Mean sample (record) size, bytes: DLIO's {@code record_length_bytes}, also the MiB/s multiplier. */
  public long recordBytes() {
    return recordBytes;
  }

  /** Standard deviation of the sample size, bytes (0: every sample is {@link #recordBytes}). */
  public long recordStdevBytes() {
    return recordStdevBytes;
  }

  /** {@code num_files_train} of the full dataset. */
  public int files() {
    return files;
  }

  /** {@code num_samples_per_file}. */
  public int samplesPerFile() {
    return samplesPerFile;
  }

  /** Samples per step (batch) of one accelerator. */
  public int batch() {
    return batch;
  }

  /** {@code read_threads} of one accelerator's data loader. */
  public int readThreads() {
    return readThreads;
  }

  /** Emulated H100 compute time per batch, seconds ({@code computation_time}). */
  public double computeSeconds() {
    return computeSeconds;
  }

  /** The mean AU a run must reach ({@code metric.au}), as a fraction. */
  public double auThreshold() {
    return auThreshold;
  }

  /** Whether the config shuffles files and samples each epoch ({@code file_shuffle}/{@code sample_shuffle: seed}). */
  public boolean shuffle() {
    return shuffle;
  }
}
