package io.granary.it.lifecycle;

import io.granary.clustermap.ClusterMap;
import io.granary.clustermap.Node;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.hrw.PlacementKey;
import io.granary.clustermap.hrw.Rendezvous;
import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Where objects are on the targets' disks, read from the files themselves (docs/storage.md: an object of bucket B
 * lives at {@code MOUNTPATH/objects/PROVIDER/B/BUCKET_ID/XX/SHA256(name)} on its owner's HRW mountpath).
 */
final class OnDisk {
  private OnDisk() {}

  /** Every object file of {@code bucket} on the given targets' mountpaths, as absolute paths. */
  static Set<Path> files(TestCluster cluster, Collection<String> targets, Bucket bucket) throws IOException {
    Set<Path> out = new TreeSet<>();
    for (String t : targets) {
      for (Path mp : cluster.mountpaths(t)) {
        Path dir = mp.toAbsolutePath().normalize().resolve("objects").resolve(bucket.provider().wireName())
            .resolve(bucket.name());
        if (!Files.isDirectory(dir)) {
          continue;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
          walk.filter(Files::isRegularFile).forEach(out::add);
        }
      }
    }
    return out;
  }

  /** Where each of {@code names} must be under {@code map}: its owner's HRW mountpath, and nowhere else. */
  static Set<Path> expected(TestCluster cluster, ClusterMap map, Bucket bucket, String bucketId,
      Collection<String> names) {
    Set<Path> out = new TreeSet<>();
    for (String name : names) {
      long digest = PlacementKey.digest(bucket, name);
      Node owner = map.placement().owner(digest).orElseThrow();
      List<Path> mps = cluster.mountpaths(owner.id()).stream().map(p -> p.toAbsolutePath().normalize()).toList();
      Path mp = Rendezvous.unweighted(mps, Path::toString).pick(digest);
      String hex = HexFormat.of().formatHex(Http.sha256().digest(name.getBytes(StandardCharsets.UTF_8)));
      out.add(mp.resolve("objects").resolve(bucket.provider().wireName()).resolve(bucket.name()).resolve(bucketId)
          .resolve(hex.substring(0, 2)).resolve(hex));
    }
    return out;
  }

  /** Asserts the object files found are exactly those expected, naming the first missing and misplaced ones. */
  static void assertExactly(Set<Path> found, Set<Path> expected) {
    Set<Path> missing = new TreeSet<>(expected);
    missing.removeAll(found);
    Set<Path> extra = new TreeSet<>(found);
    extra.removeAll(expected);
    org.assertj.core.api.Assertions.assertThat(missing.size() + extra.size())
        .as("%d files missing where HRW places them (e.g. %s), %d files elsewhere (e.g. %s)", missing.size(),
            missing.stream().limit(3).toList(), extra.size(), extra.stream().limit(3).toList())
        .isZero();
  }

  /** Whether any object file (of any bucket) is on the target's mountpaths. */
  static boolean holdsAnyObject(TestCluster cluster, String target) throws IOException {
    for (Path mp : cluster.mountpaths(target)) {
      Path objects = mp.resolve("objects");
      if (Files.isDirectory(objects)) {
        try (Stream<Path> walk = Files.walk(objects)) {
          if (walk.anyMatch(Files::isRegularFile)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The id of a bucket's current incarnation (the directory its objects live under). */
  static String bucketId(TestCluster cluster, String name) throws Exception {
    com.fasterxml.jackson.databind.JsonNode all = io.granary.clustermap.ClusterJson.mapper()
        .readTree(Http.get(cluster.endpoint() + "/v1/buckets").body());
    for (com.fasterxml.jackson.databind.JsonNode b : all.path("buckets")) {
      if (b.path("bucket").path("name").asText().equals(name)) {
        return b.path("id").asText();
      }
    }
    throw new AssertionError("no bucket " + name);
  }
}
