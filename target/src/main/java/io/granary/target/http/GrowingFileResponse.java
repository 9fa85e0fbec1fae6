package io.granary.target.http;

import io.granary.common.http.HttpExchange;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Streams {@code [from, to)} of a {@link GrowingFile} (a cold GET's download, an object being rebuilt) to one client,
 * zero-copy from the work file, as the bytes become available; pauses while the client is slow (the writer does not
 * wait for it: the disk absorbs the difference). If the writer fails, the connection is cut, so the client sees a
 * short body and never a whole object that failed verification. The caller has {@linkplain GrowingFile acquired}
 * the file for this response; the response releases it. Event loop only, except {@link #wake}.
 */
public final class GrowingFileResponse {
  private final HttpExchange ex;
  private final GrowingFile fetch;
  private final HttpResponse head;
  private final long to;
  private final Runnable wake = this::wake;
  private long pos;
  private boolean writing;
  private boolean ended;
  private boolean firstSent;

  public GrowingFileResponse(HttpExchange ex, GrowingFile fetch, HttpResponse head, long from, long to) {
    this.ex = ex;
    this.fetch = fetch;
    this.head = head;
    this.pos = from;
    this.to = to;
  }

  public void start() {
    if (!ex.startStream(head)) {
      end();
      return;
    }
    fetch.listen(wake);
    pump();
  }

  /** Called by the writer from its thread when bytes arrive or it ends. */
  private void wake() {
    ex.onLoop(this::pump);
  }

  public void clientWritable() {
    pump();
  }

  public void clientClosed() {
    end();
  }

  private void pump() {
    if (ended || writing) {
      return;
    }
    if (!ex.channel().isActive()) {
      end();
      return;
    }
    long available = Math.min(fetch.available(), to);
    if (pos < available) {
      if (!ex.clientWritable()) {
        return; // resumed by clientWritable()
      }
      long n = available - pos;
      writing = true;
      ex.streamFileRegion(fetch.channel(), pos, n).addListener(f -> {
        writing = false;
        firstBytesOut();
        if (!f.isSuccess()) {
          end();
          return;
        }
        pos += n;
        pump();
      });
    } else if (pos == to) {
      end();
      ex.endStream(LastHttpContent.EMPTY_LAST_CONTENT);
    } else if (fetch.finished().isCompletedExceptionally()) {
      end();
      ex.abortConnection();
    }
  }

  /** The head and first bytes are written (or never will be): the fetch need not hold back for this client. */
  private void firstBytesOut() {
    if (!firstSent) {
      firstSent = true;
      fetch.firstBytesSent();
    }
  }

  private void end() {
    firstBytesOut();
    if (!ended) {
      ended = true;
      fetch.unlisten(wake);
      fetch.release();
    }
  }
}
