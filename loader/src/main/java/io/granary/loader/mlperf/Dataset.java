package io.granary.loader.mlperf;

import io.granary.loader.workload.Content;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The files of a run: DLIO's names ({@code PREFIX/train/img_007_of_168.npz}, the index zero-padded to the width of
 * the count) with sample sizes drawn from the seed, or an existing set of names. Also how an epoch's files are
 * split among accelerators.
 *
 * <p>Sizes. Sample {@code j} of file {@code f} is {@code mean + stdev * g} bytes, {@code g} the first Gaussian of
 * {@code java.util.Random} seeded with the file's content seed plus {@code j}, truncated below at
 * {@link #MIN_RECORD_BYTES}; a file is its samples back to back. So {@code --generate} and every later run with the
 * same {@code --seed} agree on every size without storing anything. Files named by {@code --names} have unknown
 * sizes: their sample boundaries fall every {@code mean} bytes, and whatever a file has left at its end is its last
 * samples.
 *
 * <p>Sharding. Each epoch, files are ordered (shuffled with the seed and the epoch number when the workload
 * shuffles) and accelerator {@code r} of {@code n} takes the files at positions {@code r, r + n, ...}: whole files
 * per accelerator, as DLIO's TensorFlow reader shards them (for one-sample files, the same as sharding samples).
 */
public final class Dataset {
  /** Truncation of the sample-size distribution (unet3d's stdev is nearly half its mean). */
  public static final long MIN_RECORD_BYTES = 1024;

  private final Workload workload;
  private final List<String> names;
  private final int samplesPerFile;
  private final long seed;
  private final boolean sizesKnown;

  private Dataset(Workload workload, List<String> names, int samplesPerFile, long seed, boolean sizesKnown) {
    this.workload = workload;
    this.names = List.copyOf(names);
    this.samplesPerFile = samplesPerFile;
    this.seed = seed;
    this.sizesKnown = sizesKnown;
  }

  /** DLIO's training files under {@code prefix}, sizes from the seed. */
  public static Dataset dlio(Workload w, String prefix, int files, int samplesPerFile, long seed) {
    List<String> names = new ArrayList<>(files);
    for (int i = 0; i < files; i++) {
      names.add(dlioName(w, prefix, i, files));
    }
    return new Dataset(w, names, samplesPerFile, seed, true);
  }

  /** Existing files ({@code --names}); their sizes are whatever the server returns. */
  public static Dataset named(Workload w, List<String> names, int samplesPerFile) {
    return new Dataset(w, names, samplesPerFile, 0, false);
  }

  /** {@code PREFIX/train/img_I_of_N.FORMAT}, I zero-padded to the digits of N, as DLIO's data generator names them. */
  public static String dlioName(Workload w, String prefix, int index, int files) {
    String n = Integer.toString(files);
    String i = Integer.toString(index);
    return prefix + "train/img_" + "0".repeat(Math.max(0, n.length() - i.length())) + i + "_of_" + n + "."
        + w.format();
  }

  public Workload workload() {
    return workload;
  }

  public int files() {
    return names.size();
  }

  public String name(int file) {
    return names.get(file);
  }

  public List<String> names() {
    return names;
  }

  public int samplesPerFile() {
    return samplesPerFile;
  }

  public long totalSamples() {
    return (long) names.size() * samplesPerFile;
  }

  /** Whether {@link #fileSize} is known (DLIO names with sizes from the seed). */
  public boolean sizesKnown() {
    return sizesKnown;
  }

  /** The seed of a file's content ({@link Content}) and sample sizes. */
  public long contentSeed(int file) {
    return Content.objectSeed(seed, names.get(file));
  }

  /** Bytes of sample {@code record} of {@code file}; the mean when sizes are not known. */
  public long recordSize(int file, int record) {
    long mean = workload.recordBytes();
    long stdev = workload.recordStdevBytes();
    if (!sizesKnown || stdev == 0) {
      return mean;
    }
    double g = new Random(contentSeed(file) + record).nextGaussian();
    return Math.max(MIN_RECORD_BYTES, Math.round(mean + stdev * g));
  }

  /** Bytes of a file: its samples back to back; -1 when sizes are not known. */
  public long fileSize(int file) {
    if (!sizesKnown) {
      return -1;
    }
    if (workload.recordStdevBytes() == 0) {
      return workload.recordBytes() * samplesPerFile;
    }
    long n = 0;
    for (int j = 0; j < samplesPerFile; j++) {
      n += recordSize(file, j);
    }
    return n;
  }

  /** Bytes of the whole dataset; with unknown sizes, estimated from the mean. */
  public long totalBytes() {
    if (!sizesKnown || workload.recordStdevBytes() == 0) {
      return totalSamples() * workload.recordBytes();
    }
    long n = 0;
    for (int f = 0; f < files(); f++) {
      n += fileSize(f);
    }
    return n;
  }

  /**
   * Steps each of {@code accelerators} can take in an epoch: the batches its share fills, counting only the files
   * every accelerator gets (DLIO: all samples / batch / accelerators, the same when the count divides the files).
   */
  public int stepsPerEpoch(int accelerators, int batch) {
    long perAccelerator = (long) (files() / accelerators) * samplesPerFile;
    return (int) Math.min(Integer.MAX_VALUE, perAccelerator / batch);
  }

  /** The order of the files in {@code epoch} (1-based): as named, or shuffled when the workload shuffles. */
  public int[] order(int epoch) {
    int[] order = new int[files()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (workload.shuffle()) {
      Random r = new Random(Content.objectSeed(seed, "epoch-" + epoch));
      for (int i = order.length - 1; i > 0; i--) {
        int j = r.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
    return order;
  }

  /** The files accelerator {@code rank} of {@code accelerators} reads, in order. */
  public static int[] shard(int[] order, int rank, int accelerators) {
    int n = order.length / accelerators + (rank < order.length % accelerators ? 1 : 0);
    int[] out = new int[n];
    for (int k = 0; k < n; k++) {
      out[k] = order[rank + k * accelerators];
    }
    return out;
  }
}
