package io.granary.cli;

import io.granary.clustermap.bucket.Bucket;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code granary scrub BUCKET [--wait]}: re-hash every copy of a bucket's objects and repair what is corrupt. */
@Command(name = "scrub", mixinStandardHelpOptions = true,
    description = {"Start a job that re-hashes every object of a bucket on every target (main and mirror copies) "
        + "and repairs corrupt copies: from an intact copy, or for a remote bucket by dropping the cached copy.",
        "Prints the job id (scrub-PROVIDER.BUCKET); follow it with 'granary job show ID'."})
public final class ScrubCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin
  ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

  @Parameters(index = "0", paramLabel = "BUCKET", description = "ais://NAME (or NAME), s3://NAME or gs://NAME.")
  String bucket;

  @Option(names = "--wait", description = "Show progress until the scrub ends; exit 1 if it found anything it "
      + "could not repair, or failed.")
  boolean await;

  @Override
  public Integer call() throws Exception {
    Bucket b;
    try {
      b = BucketCommand.parse(bucket);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", ScrubReport.KIND);
    body.put("bucket", b.name());
    body.put("provider", b.provider().wireName());
    return JobWaiter.start(endpoint, body, await);
  }
}
