package io.granary.common.http;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A sendfile region of a file channel that its owner keeps open: unlike {@link DefaultFileRegion}, releasing it
 * does not close the channel. Several clients stream one cold object from its growing work file this way, and a
 * target sends an object to another one region by region.
 */
public final class BorrowedFileRegion extends DefaultFileRegion {
  public BorrowedFileRegion(FileChannel file, long position, long count) {
    super(file, position, count);
  }

  @Override
  protected void deallocate() {
    // the owner closes the channel
  }
}
