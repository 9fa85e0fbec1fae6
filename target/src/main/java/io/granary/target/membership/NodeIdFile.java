package io.granary.target.membership;

import io.granary.clustermap.Node;
import io.granary.common.membership.MetadataFiles;
import io.granary.target.storage.Mountpath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A target's persistent id, kept in every mountpath ({@code .granary/node-id}) so that a restarted target comes
 * back with the same id and therefore the same HRW place. Mountpaths of different targets are never mixed: all
 * must agree, and an explicit {@code --id} must match what they hold.
 */
public final class NodeIdFile {
  private static final String FILE = "node-id";

  private NodeIdFile() {}

  /** The id to use: the one the mountpaths hold, else {@code requested}, else a new random one; persisted to all. */
  public static String resolve(List<Mountpath> mountpaths, String requested) throws IOException {
    String found = null;
    for (Mountpath mp : mountpaths) {
      Path f = mp.systemDir().resolve(FILE);
      if (Files.exists(f)) {
        String id = Files.readString(f, StandardCharsets.UTF_8).trim();
        if (found != null && !found.equals(id)) {
          throw new IOException("mountpaths belong to different targets: '" + found + "' and '" + id + "' (" + mp + ")");
        }
        found = id;
      }
    }
    if (found != null && requested != null && !found.equals(requested)) {
      throw new IOException("mountpaths belong to target '" + found + "', not '" + requested + "'");
    }
    String id = found != null ? found : requested != null ? requested : Node.randomId("t");
    Node.requireValidId(id);
    for (Mountpath mp : mountpaths) {
      Path f = mp.systemDir().resolve(FILE);
      if (!Files.exists(f)) {
        MetadataFiles.writeAtomically(f, (id + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    return id;
  }
}
