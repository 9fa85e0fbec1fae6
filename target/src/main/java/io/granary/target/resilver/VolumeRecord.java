package io.granary.target.resilver;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Optional;

/**
 * What a target persists about its mountpaths (AIStore's "VMD", volume metadata), a copy in every readable
 * mountpath's {@code .granary/mountpaths.json}: each mountpath with its state, whether it was attached at run time
 * (such a one is kept at the next start though no {@code --mountpath} names it), and the latest resilver and whether
 * it finished (an unfinished one resumes at the next start).
 *
 * @param version grows with every change; the newest copy wins
 * @param resilver the latest resilver's id
 * @param resilverDone whether it finished
 * @param mountpaths every mountpath, disabled ones too, and flagged ones detached at run time
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
record VolumeRecord(long version, long resilver, boolean resilverDone, List<Entry> mountpaths) {
  /**
   * The state of an entry for a mountpath an operator detached at run time while its {@code --mountpath} flag is
   * given: it is not opened at the next start, until attached again (not a {@code MountpathState}: it is gone).
   */
  static final String DETACHED = "detached";

  VolumeRecord {
    mountpaths = List.copyOf(mountpaths);
  }

  /**
   * One mountpath.
   *
   * @param path its directory, absolute
   * @param state its state's wire name
   * @param attached attached at run time rather than given with --mountpath
   * @param reason why it is disabled, or null
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Entry(String path, String state, boolean attached, String reason) {
  }

  Optional<Entry> entry(String path) {
    return mountpaths.stream().filter(e -> e.path().equals(path)).findFirst();
  }
}
