package io.granary.target.storage;

import io.granary.common.error.ObjectNotFoundException;
import io.granary.common.error.PreconditionFailedException;
import io.granary.target.meta.ObjectMeta;

/**
 * The precondition of a write (PUT, multipart completion, copy destination), as S3 gives it: {@code If-None-Match: *}
 * (the object must not exist) or {@code If-Match: ETAG} (it must exist with that ETag; {@code *}: exist at all).
 * Evaluated against the object's newest copy on this target; the decisive evaluation runs under the object's write
 * lock, atomically with the rename that commits the new version ({@link #on}), so of racing writers with the same
 * precondition at most one commits.
 *
 * @param ifMatch the ETag the object must have, unquoted; {@code *} for any; null when not given
 * @param ifNoneMatchAny the object must not exist
 */
public record WriteCondition(String ifMatch, boolean ifNoneMatchAny) {
  /** No precondition: the write always commits. */
  public static final WriteCondition NONE = new WriteCondition(null, false);

  public WriteCondition {
    if (ifMatch != null && ifNoneMatchAny) {
      throw new IllegalArgumentException("If-Match and If-None-Match exclude each other");
    }
  }

  public static WriteCondition ifMatch(String etag) {
    return new WriteCondition(etag, false);
  }

  public static WriteCondition ifNoneMatchStar() {
    return new WriteCondition(null, true);
  }

  public boolean isNone() {
    return ifMatch == null && !ifNoneMatchAny;
  }

  /**
   * Checks the condition against {@code current}, the object's metadata now (null: absent).
   *
   * @throws PreconditionFailedException (412) when the object exists under If-None-Match, or has another ETag
   *     under If-Match
   * @throws ObjectNotFoundException (404, S3 NoSuchKey) when If-Match names an object that does not exist
   */
  public void check(ObjectMeta current, String bucket, String name) {
    checkEtag(current == null ? null : current.effectiveEtag(), bucket, name);
  }

  /** {@link #check} against the ETag of the object's current version ({@code null}: absent), as another target saw it. */
  public void checkEtag(String current, String bucket, String name) {
    if (ifNoneMatchAny && current != null) {
      throw new PreconditionFailedException("If-None-Match: * and object '" + name + "' exists (ETag \""
          + current + "\"); nothing was stored");
    }
    if (ifMatch == null) {
      return;
    }
    if (current == null) {
      throw new ObjectNotFoundException(bucket, name);
    }
    if (!ifMatch.equals("*") && !ifMatch.equals(current)) {
      throw new PreconditionFailedException("If-Match \"" + ifMatch + "\" does not match the ETag \""
          + current + "\" of object '" + name + "'; nothing was stored");
    }
  }

  /**
   * This condition as a commit condition of {@code loc}'s object, or null when there is none (commit always). It
   * refuses by throwing the answer of {@link #check}; the commit then removes its work file and changes nothing.
   */
  public ObjectStore.CommitCondition on(ObjectLocation loc) {
    if (isNone()) {
      return null;
    }
    String bucket = loc.bucket().bucket().toString();
    return current -> {
      check(current, bucket, loc.name());
      return true;
    };
  }
}
