package io.granary.target.meta;

/**
 * A durable promise, written (synced) just before a work file is renamed into place: "work file {@code workFile}
 * holds the complete, fsynced content of {@code key}, described by {@code meta}, to be renamed to
 * {@code objectFile}". Recovery at start finishes any intent a crash interrupted, so a crash between the rename
 * and the metadata commit can never leave new bytes under old metadata.
 *
 * @param key the object's metadata key
 * @param workFile work file name, relative to the mountpath
 * @param objectFile final object file, relative to the mountpath
 * @param meta the metadata to commit
 */
public record CommitIntent(String key, String workFile, String objectFile, ObjectMeta meta) {
}
