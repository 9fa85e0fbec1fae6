package io.granary.common.s3;

/**
 * One {@code <Object>} of a DeleteObjects request, and the object a {@code <Deleted>} entry reports.
 *
 * @param key the object key exactly as sent (it may be empty or invalid: the caller reports that per key)
 * @param versionId the version to delete, or {@code null}
 */
public record ObjectIdentifier(String key, String versionId) {

  public static ObjectIdentifier of(String key) {
    return new ObjectIdentifier(key, null);
  }
}
