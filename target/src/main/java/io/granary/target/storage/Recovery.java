package io.granary.target.storage;

import io.granary.target.meta.CommitIntent;
import io.granary.target.meta.ObjectMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  /** @return the commits it finished: their objects' older copies elsewhere may need removing too */
  static List<CommitIntent> recover(String nodeId, Mountpath mp) throws IOException {
    List<CommitIntent> finishedIntents = new ArrayList<>();
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
      finishedIntents.add(intent);
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
    return finishedIntents;
  }

  /**
   * Finishes what the interrupted commits on {@code committedOn} did to other mountpaths: a commit removes the older
   * copies of its object elsewhere (the source of a move between mountpaths) before its intent goes, so a crash
   * may have left one of them, or its file without its record. The object file has the same relative path on every
   * mountpath. A copy newer than the commit stays.
   */
  static void removeOlderCopies(String nodeId, Mountpath committedOn, List<CommitIntent> intents,
      List<Mountpath> readable) throws IOException {
    int removed = 0;
    for (CommitIntent intent : intents) {
      for (Mountpath other : readable) {
        if (other == committedOn) {
          continue;
        }
        ObjectMeta m = other.meta().get(intent.key());
        if (m != null && !CommitProtocol.olderOrStray(other, m, intent.meta())) {
          continue; // newer, or a mirror copy of the version committed
        }
        if (m != null) {
          other.meta().delete(intent.key());
          other.usage().addObjects(-1, -m.size());
        }
        if (Files.deleteIfExists(other.root().resolve(intent.objectFile())) || m != null) {
          removed++;
        }
      }
    }
    if (removed > 0) {
      log.info("node={} mountpath={} recovered: removed {} older copies of objects committed there", nodeId,
          committedOn, removed);
    }
  }
}
