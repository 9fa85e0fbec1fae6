package io.granary.target.validation;

import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.target.checksum.ContentHasher;
import io.granary.target.http.WarmValidation;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.storage.StoredObject;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.EOFException;
import java.nio.channels.FileChannel;

/**
 * Streams a whole object to one client while hashing it: each {@link #CHUNK} is read into a pooled direct buffer and
 * hashed on a disk thread, then written on the event loop. One read runs at a time and at most one read chunk waits
 * for a slow client, so memory is two chunks per GET whatever the object's size. The last chunk is written only once
 * the hash of the whole object matches its record; on a mismatch the connection is closed before it, and
 * {@code onMismatch} repairs the object for the next GET.
 *
 * <p>Threads: {@link #start}, {@link #clientWritable}, {@link #clientClosed} and the read completions run on the
 * connection's event loop; the reads and the hashing on the disk pool. The hasher is used by one read at a time,
 * each handed over through the pool's queue and the completion (happens-before).
 *
 * <p>Buffers: a chunk read belongs to this stream until written ({@code streamContent}: Netty releases it) or
 * released here (a failure, a mismatch, a closed client).
 */
final class ValidatingStream implements WarmValidation.Served {
  /** Bytes read, hashed and written at once. */
  static final int CHUNK = 256 << 10;

  private final HttpExchange ex;
  private final HttpResponse head;
  private final FileChannel file;
  private final ObjectMeta meta;
  private final BoundedExecutor disk;
  private final Runnable onMismatch;
  private final ContentHasher hasher;
  private long pos; // bytes read and hashed so far
  private boolean reading; // a read is on the disk pool
  private ByteBuf pending; // read and hashed, waiting for the client to take more
  private boolean ended;

  ValidatingStream(HttpExchange ex, HttpResponse head, StoredObject obj, BoundedExecutor disk, Runnable onMismatch) {
    this.ex = ex;
    this.head = head;
    this.file = obj.channel();
    this.meta = obj.meta();
    this.disk = disk;
    this.onMismatch = onMismatch;
    this.hasher = ContentHasher.of(meta.checksumType());
  }

  void start() {
    if (!ex.startStream(head)) {
      end();
      return;
    }
    ex.flushStream();
    readNext();
  }

  @Override
  public void clientWritable() {
    if (pending != null && !ended) {
      ByteBuf b = pending;
      pending = null;
      write(b);
    }
  }

  @Override
  public void clientClosed() {
    end();
  }

  private void readNext() {
    if (ended || reading || pending != null) {
      return;
    }
    if (!ex.channel().isActive()) {
      end();
      return;
    }
    int n = (int) Math.min(CHUNK, meta.size() - pos);
    long at = pos;
    ByteBuf buf = ex.alloc().directBuffer(n, n);
    reading = true;
    disk.submit(() -> {
      while (buf.isWritable()) {
        if (buf.writeBytes(file, at + buf.writerIndex(), buf.writableBytes()) < 0) {
          throw new EOFException("file ends at " + (at + buf.writerIndex()) + " of " + meta.size() + " bytes");
        }
      }
      hasher.update(buf.nioBuffer());
      return buf;
    }).whenComplete((b, err) -> ex.onLoop(() -> read(buf, n, err)));
  }

  private void read(ByteBuf buf, int n, Throwable err) {
    reading = false;
    if (ended) {
      buf.release();
      ValidatingReads.close(file); // end() left it to this read
      return;
    }
    if (err != null) {
      buf.release();
      end();
      ex.abortConnection(); // the head is out: only a short body can say the read failed
      return;
    }
    pos += n;
    if (pos < meta.size()) {
      if (ex.clientWritable()) {
        write(buf);
      } else {
        pending = buf; // written by clientWritable()
      }
      return;
    }
    String actual = hasher.hex();
    if (actual.equalsIgnoreCase(meta.checksum())) {
      ex.streamContent(new DefaultHttpContent(buf));
      end();
      ex.endStream(LastHttpContent.EMPTY_LAST_CONTENT);
    } else {
      buf.release();
      end();
      ex.abortConnection(); // before the last chunk: the client never has the whole wrong object
      onMismatch.run();
    }
  }

  private void write(ByteBuf buf) {
    ex.streamContent(new DefaultHttpContent(buf));
    ex.flushStream();
    readNext();
  }

  private void end() {
    if (ended) {
      return;
    }
    ended = true;
    if (pending != null) {
      pending.release();
      pending = null;
    }
    if (!reading) {
      ValidatingReads.close(file);
    } // else the read's completion releases its buffer and closes the channel
  }
}
