package io.granary.target.storage;

import io.granary.target.meta.ObjectMeta;
import java.nio.channels.FileChannel;

/**
 * An object opened for reading: its metadata and an open channel on exactly the content that metadata describes
 * (a concurrent overwrite replaces the file's name, not this channel's content). The reader closes the channel.
 */
public record StoredObject(ObjectMeta meta, FileChannel channel) {
}
