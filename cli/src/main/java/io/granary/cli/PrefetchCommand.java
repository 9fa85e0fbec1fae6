package io.granary.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code granary prefetch s3://b --prefix P | --template T | --names a,b | --names-file F}: warm the cache. */
@Command(name = "prefetch", mixinStandardHelpOptions = true,
    description = "Start a job that fetches remote objects into the cache; each target fetches what it owns.")
public final class PrefetchCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

  @Parameters(index = "0", paramLabel = "BUCKET", description = "A remote bucket: s3://NAME or gs://NAME.")
  String bucket;

  @Option(names = "--prefix", description = "Every object whose name starts with P ('' for the whole bucket).")
  String prefix;

  @Option(names = "--template", description = "Brace ranges, e.g. 'shard-{0000..0999}.tar' or '{0..100..2}'.")
  String template;

  @Option(names = "--names", split = ",", description = "Object names, comma-separated.")
  List<String> names;

  @Option(names = "--names-file", description = "A file with one object name per line ('#' comments).")
  Path namesFile;

  @Option(names = "--latest", description = "Revalidate cached copies against the remote too.")
  boolean latest;

  @Option(names = "--concurrency", description = "Fills in flight per target, 1-64 (default: the targets').")
  Integer concurrency;

  @Option(names = "--wait", description = "Show progress until the job ends; exit 1 if anything failed.")
  boolean await;

  @Override
  public Integer call() throws Exception {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", "prefetch");
    body.put("bucket", bucket);
    List<String> all = names();
    int given = (prefix != null ? 1 : 0) + (template != null ? 1 : 0) + (all != null ? 1 : 0);
    if (given != 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), given == 0
          ? "say what to prefetch: --prefix P (--prefix '' for the whole bucket), --template T, --names or --names-file"
          : "give only one of --prefix, --template, --names/--names-file");
    }
    if (concurrency != null && (concurrency < 1 || concurrency > 64)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--concurrency must be 1 to 64");
    }
    body.put(prefix != null ? "prefix" : template != null ? "template" : "names",
        prefix != null ? prefix : template != null ? template : all);
    body.put("latest", latest);
    if (concurrency != null) {
      body.put("concurrency", concurrency);
    }
    return JobWaiter.start(endpoint, body, await);
  }

  /** --names and --names-file together, or null when neither was given. */
  private List<String> names() throws Exception {
    if (names == null && namesFile == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    if (names != null) {
      names.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
    }
    if (namesFile != null) {
      try {
        Arrays.stream(Files.readString(namesFile, StandardCharsets.UTF_8).split("\\R")).map(String::strip)
            .filter(s -> !s.isEmpty() && !s.startsWith("#")).forEach(out::add);
      } catch (NoSuchFileException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--names-file: no such file: " + namesFile);
      }
    }
    if (out.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "no object names given");
    }
    return out;
  }
}
