package io.granary.cli;

import io.granary.clustermap.ClusterJson;
import io.granary.common.mountpath.MountpathsReport;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code granary mountpath ls|attach|detach|disable}: a target's disks, through a proxy (docs/resilver.md). Each
 * command prints the mountpaths and the resilver afterwards; {@code --wait} waits for the resilver to end.
 */
@Command(name = "mountpath", mixinStandardHelpOptions = true,
    description = "List, attach, detach or disable a target's mountpaths (disks).",
    subcommands = {MountpathCommand.Ls.class, MountpathCommand.Attach.class, MountpathCommand.Detach.class,
        MountpathCommand.Disable.class})
public final class MountpathCommand {

  /** Options every mountpath command shares. */
  static final class Target {
    @Mixin
    ClusterCommand.Endpoint endpoint = new ClusterCommand.Endpoint();

    @Option(names = {"--target", "-t"}, required = true, paramLabel = "ID", description = "The target's node id.")
    String id;

    @Option(names = "--json", description = "Print the raw JSON.")
    boolean json;

    @Option(names = "--wait", description = "Wait until the resilver the change started has ended.")
    boolean await;

    @Option(names = "--timeout", defaultValue = "1h", converter = DurationConverter.class,
        description = "How long --wait waits (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    String url(String path) {
      String base = endpoint.url + "/v1/cluster/nodes/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
          + "/mountpaths";
      return path == null ? base : base + "/" + URLEncoder.encode(path, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Sends the request, waits for the resilver when asked, and prints the mountpaths. */
    int run(HttpRequest.Builder b) throws Exception {
      String body = ClusterCommand.Endpoint.check(endpoint.send(b));
      MountpathsReport r = ClusterJson.mapper().readValue(body, MountpathsReport.class);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (await && MountpathsReport.Resilver.RUNNING.equals(r.resilver().state())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the resilver on " + id + " did not end within " + timeout);
        }
        Thread.sleep(500);
        body = ClusterCommand.Endpoint.check(endpoint.send(HttpRequest.newBuilder(URI.create(url(null)))));
        r = ClusterJson.mapper().readValue(body, MountpathsReport.class);
      }
      if (json) {
        System.out.println(body);
      } else {
        print(r);
      }
      return await && MountpathsReport.Resilver.FAILED.equals(r.resilver().state()) ? 1 : 0;
    }
  }

  static void print(MountpathsReport r) {
    System.out.printf("%-40s %-10s %10s %14s %14s %14s  %s%n", "MOUNTPATH", "STATE", "OBJECTS", "BYTES", "USED",
        "CAPACITY", "NOTE");
    for (MountpathsReport.Mountpath m : r.mountpaths()) {
      String note = m.reason() != null ? m.reason() : m.attachedAtRunTime() ? "attached at run time" : "";
      System.out.printf("%-40s %-10s %10s %14s %14s %14s  %s%n", m.path(), m.state(), orDash(m.objects()),
          orDash(m.objectBytes()), orDash(m.usedBytes()), orDash(m.capacityBytes()), note);
    }
    MountpathsReport.Resilver s = r.resilver();
    System.out.printf("resilver %d: %s%s; moved %d of %d objects (%d of %d bytes), %d kept, %d uploads, %d failed%s%n",
        s.id(), s.state(), s.cause() == null ? "" : " (" + s.cause() + ")", s.objectsMoved(), s.objectsToMove(),
        s.bytesMoved(), s.bytesToMove(), s.objectsKept(), s.uploadsMoved(), s.failed(),
        s.error() == null ? "" : "; first failure: " + s.error());
    if (r.failedMountpaths() > 0) {
      System.out.println(r.failedMountpaths() + " mountpath(s) failed their health check since the target started");
    }
  }

  private static String orDash(Long v) {
    return v == null ? "-" : v.toString();
  }

  @Command(name = "ls", mixinStandardHelpOptions = true, description = "A target's mountpaths and its resilver.")
  static final class Ls implements Callable<Integer> {
    @Mixin
    Target target = new Target();

    @Override
    public Integer call() throws Exception {
      return target.run(HttpRequest.newBuilder(URI.create(target.url(null))));
    }
  }

  @Command(name = "attach", mixinStandardHelpOptions = true,
      description = "Attach a directory (a disk) to a target, or enable a disabled one; objects move to it.")
  static final class Attach implements Callable<Integer> {
    @Mixin
    Target target = new Target();

    @Parameters(index = "0", paramLabel = "PATH", description = "The directory, absolute, on the target's host.")
    String path;

    @Override
    public Integer call() throws Exception {
      String body = ClusterJson.mapper().writeValueAsString(Map.of("path", path));
      return target.run(HttpRequest.newBuilder(URI.create(target.url(null)))
          .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json"));
    }
  }

  @Command(name = "detach", mixinStandardHelpOptions = true,
      description = "Detach a mountpath: its objects move to the others (still readable), then it is released.")
  static final class Detach implements Callable<Integer> {
    @Mixin
    Target target = new Target();

    @Parameters(index = "0", paramLabel = "PATH", description = "The mountpath.")
    String path;

    @Override
    public Integer call() throws Exception {
      return target.run(HttpRequest.newBuilder(URI.create(target.url(path) + "?mode=detach")).DELETE());
    }
  }

  @Command(name = "disable", mixinStandardHelpOptions = true,
      description = "Disable a mountpath at once: its objects are not read until it is attached again.")
  static final class Disable implements Callable<Integer> {
    @Mixin
    Target target = new Target();

    @Parameters(index = "0", paramLabel = "PATH", description = "The mountpath.")
    String path;

    @Override
    public Integer call() throws Exception {
      return target.run(HttpRequest.newBuilder(URI.create(target.url(path) + "?mode=disable")).DELETE());
    }
  }
}
