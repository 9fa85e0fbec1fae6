package io.granary.common.s3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * An S3 XML response body. Each implementation is a record of what the document says and writes its elements in
 * the order S3 does; this interface adds the XML declaration and the UTF-8 encoding.
 */
public interface S3XmlDocument {
  /** The {@code Content-Type} of every S3 XML body. */
  String CONTENT_TYPE = "application/xml";

  /** Writes the root element and everything in it; the declaration is already written. */
  void write(S3XmlWriter xml);

  /** The whole document as UTF-8 bytes. */
  default byte[] toXml() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    try {
      writeTo(out);
    } catch (IOException impossible) {
      throw new UncheckedIOException(impossible);
    }
    return out.toByteArray();
  }

  /** The whole document in a new buffer from {@code alloc}, for a Netty response. */
  default ByteBuf toByteBuf(ByteBufAllocator alloc) {
    ByteBuf buf = alloc.buffer(512);
    boolean written = false;
    try {
      writeTo(new ByteBufOutputStream(buf));
      written = true;
      return buf;
    } catch (IOException impossible) { // a ByteBufOutputStream does not fail
      throw new UncheckedIOException(impossible);
    } finally {
      if (!written) {
        buf.release();
      }
    }
  }

  /** Writes the whole document to {@code out} as UTF-8 and flushes; {@code out} is not closed. */
  default void writeTo(OutputStream out) throws IOException {
    Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
    try {
      write(new S3XmlWriter(w).declaration());
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    w.flush();
  }
}
