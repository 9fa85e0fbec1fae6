package io.granary.target.storage;

import io.granary.target.meta.CommitIntent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a mountpath needs before it is read after a crash: commits the crash interrupted are finished (step 2 of the
 * commit protocol was durable, so the object is the new version), work files and trash a dead process left are
 * removed. Runs when a mountpath opens, at start or when attached, before any request can see it.
 */
final class Recovery {
  private static final Logger log = LoggerFactory.getLogger(Recovery.class);

  private Recovery() {}

  static void recover(String nodeId, Mountpath mp) throws IOException {
    int finished = 0;
    for (CommitIntent intent : mp.meta().intents()) {
      Path work = mp.root().resolve(intent.workFile());
      Path file = mp.root().resolve(intent.objectFile());
      if (Files.exists(work)) {
        FileOps.createDirectories(file.getParent());
        FileOps.moveReplacing(work, file);
      }
      if (Files.isDirectory(file.getParent())) {
        FileOps.syncDirectory(file.getParent()); // the rename may be ours, or one a power loss could still undo
      }
      mp.meta().completeIntent(intent);
      finished++;
    }
    int removed = 0;
    try (Stream<Path> work = Files.list(mp.workDir())) {
      for (Path p : (Iterable<Path>) work::iterator) {
        Files.deleteIfExists(p);
        removed++;
      }
    }
    try (Stream<Path> trash = Files.list(mp.trashDir())) {
      for (Path p : (Iterable<Path>) trash::iterator) {
        FileOps.deleteTree(p);
      }
    }
    if (finished > 0 || removed > 0) {
      log.info("node={} mountpath={} recovered: finished {} interrupted commits, removed {} stale work files",
          nodeId, mp, finished, removed);
    }
  }
}
