package io.granary.loader.mlperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.granary.loader.Protocol;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MlperfOptionsTest {

  /** The components of a valid run (a small resnet50 dataset, native); tests change one or two. */
  static final class B {
    Workload w = Workload.RESNET50;
    List<URI> endpoints = List.of(URI.create("http://127.0.0.1:51080"));
    String bucket = "train";
    Protocol protocol = Protocol.NATIVE;
    int accelerators = 1;
    boolean search;
    int maxAccelerators;
    int files = 8;
    int samplesPerFile = 800;
    int epochs = 1;
    int stepsPerEpoch;
    double compute = 0.224;
    int readThreads = 8;
    String prefix = "resnet50/";
    Path names;
    boolean generate;
    Path generateDir;
    boolean generateOnly;
    int workers = 10;
    String accessKey;
    String secretKey;
    boolean direct;
    String clusterSecret;

    MlperfOptions build() {
      return new MlperfOptions(w, endpoints, bucket, protocol, accelerators, search, maxAccelerators, files,
          samplesPerFile, epochs, stepsPerEpoch, compute, readThreads, prefix, names, generate, generateDir,
          generateOnly, workers, null, 0, accessKey, secretKey, direct, clusterSecret);
    }
  }

  static MlperfOptions with(Consumer<B> change) {
    B b = new B();
    change.accept(b);
    return b.build();
  }

  @Test
  void valid_prefixGetsItsSlash_batchIsTheWorkloads() {
    MlperfOptions o = with(b -> b.prefix = "data/resnet50");
    assertThat(o.prefix()).isEqualTo("data/resnet50/");
    assertThat(o.batch()).isEqualTo(400);
    assertThat(with(b -> b.prefix = "").prefix()).isEmpty();
  }

  @Test
  void httpNeedsNoBucket_generateOnlyToADirectoryNeedsNoCluster() {
    assertThat(with(b -> {
      b.protocol = Protocol.HTTP;
      b.bucket = null;
    }).bucket()).isNull();
    assertThat(with(b -> {
      b.protocol = Protocol.S3;
      b.bucket = null;
      b.generateDir = Path.of("/srv/www");
      b.generateOnly = true;
    }).generateOnly()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "no bucket             | --bucket is required with --protocol native",
      "zero accelerators     | --accelerators must be 1 to 1024, not 0",
      "max without search    | --max-accelerators only applies with --search",
      "max below start       | --max-accelerators (2) is below --accelerators (4), where the search starts",
      "files and names       | --files and --names both give the dataset's files: use one",
      "no files              | --files must be 1 to 100000000, not 0",
      "one step              | --steps-per-epoch must be at least 2 (AU excludes the first step), not 1",
      "no compute            | --compute-time must be above 0 and at most 1h",
      "zero epochs           | --epochs must be 1 to 1000, not 0",
      "zero read threads     | --read-threads must be 1 to 256, not 0",
      "absolute prefix       | --prefix must not start with '/': object names are relative",
      "generate over http    | --generate PUTs through --protocol native or s3; for --protocol http write the files "
          + "with --generate-dir DIR and serve DIR",
      "generate-only alone   | --generate-only needs --generate or --generate-dir DIR",
      "names and generate    | --names reads an existing dataset, --generate and --generate-dir write the "
          + "DLIO-named one: use one or the other",
      "s3 without keys       | --protocol s3 needs --access-key and --secret-key (or AWS_ACCESS_KEY_ID and "
          + "AWS_SECRET_ACCESS_KEY)",
      "direct over http      | --direct works with --protocol native or s3, not http",
      "direct without secret | --direct needs the cluster secret: env GRANARY_CLUSTER_SECRET, --cluster-secret-file "
          + "FILE or --cluster-secret S (granary local writes it to DATA/cluster-secret)"})
  void invalid_isOneLineNamingTheFlag(String which, String message) {
    Consumer<B> change = switch (which.strip()) {
      case "no bucket" -> b -> b.bucket = " ";
      case "zero accelerators" -> b -> b.accelerators = 0;
      case "max without search" -> b -> b.maxAccelerators = 4;
      case "max below start" -> b -> {
        b.search = true;
        b.accelerators = 4;
        b.maxAccelerators = 2;
      };
      case "files and names" -> b -> b.names = Path.of("names.txt");
      case "no files" -> b -> b.files = 0;
      case "one step" -> b -> b.stepsPerEpoch = 1;
      case "no compute" -> b -> b.compute = 0;
      case "zero epochs" -> b -> b.epochs = 0;
      case "zero read threads" -> b -> b.readThreads = 0;
      case "absolute prefix" -> b -> b.prefix = "/data";
      case "generate over http" -> b -> {
        b.protocol = Protocol.HTTP;
        b.generate = true;
      };
      case "generate-only alone" -> b -> b.generateOnly = true;
      case "names and generate" -> b -> {
        b.files = 0;
        b.names = Path.of("names.txt");
        b.generate = true;
      };
      case "s3 without keys" -> b -> b.protocol = Protocol.S3;
      case "direct over http" -> b -> {
        b.protocol = Protocol.HTTP;
        b.direct = true;
        b.clusterSecret = "0123456789abcdef0123456789abcdef";
      };
      case "direct without secret" -> b -> b.direct = true;
      default -> throw new IllegalArgumentException(which);
    };
    assertThatThrownBy(() -> with(change)).isInstanceOf(IllegalArgumentException.class).hasMessage(message)
        .hasMessageNotContaining("\n");
  }

  @Test
  void parseSeconds_decimalSecondsOrMilliseconds_badValueNamesTheFlag() {
    assertThat(MlperfOptions.parseSeconds("--compute-time", "0.224")).isEqualTo(0.224);
    assertThat(MlperfOptions.parseSeconds("--compute-time", "0.5s")).isEqualTo(0.5);
    assertThat(MlperfOptions.parseSeconds("--compute-time", "3.5ms")).isEqualTo(0.0035);
    assertThat(MlperfOptions.parseSeconds("--compute-time", ".1")).isEqualTo(0.1);
    assertThatThrownBy(() -> MlperfOptions.parseSeconds("--compute-time", "fast"))
        .hasMessageStartingWith("--compute-time: invalid time 'fast'");
  }

  @Test
  void toString_hidesSecrets() {
    MlperfOptions o = with(b -> {
      b.protocol = Protocol.S3;
      b.accessKey = "AKIDEXAMPLE";
      b.secretKey = "wJalrXUtnFEMI";
    });
    assertThat(o.toString()).doesNotContain("AKIDEXAMPLE").doesNotContain("wJalrXUtnFEMI").contains("(set)");
  }
}
