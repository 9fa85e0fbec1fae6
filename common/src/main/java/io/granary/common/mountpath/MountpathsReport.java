package io.granary.common.mountpath;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /v1/mountpaths} on a target (and {@code /v1/cluster/nodes/ID/mountpaths} on a proxy): each mountpath
 * with its state and what it holds, and the target's latest resilver (docs/resilver.md).
 *
 * @param target the target's id
 * @param mountpaths every mountpath the target knows, disabled ones too
 * @param resilver the latest resilver; state {@code idle} when none ran since the target started
 * @param failedMountpaths mountpaths disabled since start because their health check failed
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record MountpathsReport(String target, List<Mountpath> mountpaths, Resilver resilver, long failedMountpaths) {
  public MountpathsReport {
    mountpaths = List.copyOf(mountpaths);
  }

  /**
   * One mountpath.
   *
   * @param path its directory
   * @param state {@code available} (takes new objects), {@code attaching} (read; joins placement once checked),
   *     {@code detaching} (read; its objects move off, then it is released) or {@code disabled} (not used)
   * @param objects objects it holds (null when not open)
   * @param objectBytes their bytes (null when not open)
   * @param usedBytes bytes used by the target on it, or on its file system without a capacity limit (null when it
   *     cannot be measured)
   * @param capacityBytes its capacity: the configured limit or the file system's size (null when unknown)
   * @param attachedAtRunTime whether it was attached through the API rather than given with {@code --mountpath}
   * @param reason why it is disabled, or null
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Mountpath(String path, String state, Long objects, Long objectBytes, Long usedBytes,
      Long capacityBytes, boolean attachedAtRunTime, String reason) {
  }

  /**
   * A resilver: objects moving to their HRW mountpath inside the target.
   *
   * @param id the resilver's number on this target (each change of the mountpaths starts a new one)
   * @param state {@code idle}, {@code running}, {@code done}, {@code failed} (some objects could not move: see
   *     {@code error}) or {@code superseded} (a newer change started another)
   * @param cause what started it (attach, detach, disable, a failed mountpath, a changed --mountpath set)
   * @param objectsToMove misplaced objects found when it started
   * @param bytesToMove their bytes
   * @param objectsMoved objects moved so far
   * @param bytesMoved their bytes
   * @param objectsKept misplaced copies dropped because the HRW mountpath held the same or a newer version
   * @param uploadsMoved multipart uploads in progress moved
   * @param failed objects that could not be moved (they stay where they are, still readable)
   * @param error the first failure, or null
   * @param started when it started
   * @param finished when it ended, or null
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Resilver(long id, String state, String cause, long objectsToMove, long bytesToMove,
      long objectsMoved, long bytesMoved, long objectsKept, long uploadsMoved, long failed, String error,
      Instant started, Instant finished) {
    public static final String IDLE = "idle";
    public static final String RUNNING = "running";
    public static final String DONE = "done";
    public static final String FAILED = "failed";
    public static final String SUPERSEDED = "superseded";
  }
}
