package io.granary.target.rebalance;

import io.granary.clustermap.bucket.BucketProps;
import io.granary.common.error.BadRequestException;
import io.granary.common.http.RequestPath;
import io.granary.target.meta.ObjectMeta;
import io.granary.target.meta.ObjectMetaCodec;
import io.netty.util.AsciiString;
import java.io.IOException;

/**
 * The wire form of objects moving between targets (docs/rebalance.md, "On the wire"). Every request is signed with
 * the cluster secret like any request a target serves.
 *
 * <pre>
 * PUT    /v1/transport/objects/BUCKET/OBJECT?provider=P&amp;bid=ID       receive a copy: body = the whole record
 *        (granary-object-meta-length bytes) then the content, granary-object-atime = its access time;
 *        200 {"outcome":...}; with If-Match / If-None-Match: committed only if that holds for the copy here (412,
 *        404 otherwise)
 * GET    /v1/transport/objects/BUCKET/OBJECT?provider=P               the ETag of the copy here: {"etag":...}, or 404
 * DELETE /v1/transport/objects/BUCKET/OBJECT?provider=P&amp;before=MS    remove a copy not newer than MS (a delete made
 *        on the owner while objects move); 200 {"removed":true|false}
 * POST   /v1/transport/push/BUCKET/OBJECT?provider=P&amp;to=NODE         send the copy held here to NODE now
 *        (get-from-neighbor); 200 {"outcome":...} or 404 when not held here; with &amp;relay=N an object of at
 *        least N bytes is pushed in the background and the answer, at once, is {"outcome":"relay"}
 * GET    /v1/rebalance                                               this target's rebalance progress
 * </pre>
 *
 * {@code bid} is the bucket incarnation the copy belongs to: a receiver whose bucket has another id refuses it.
 */
public final class ObjectTransport {
  public static final String OBJECTS = "/v1/transport/objects/";
  public static final String PUSH = "/v1/transport/push/";
  public static final String PREFIX = "/v1/transport/";
  public static final String PROGRESS = "/v1/rebalance";
  /**
   * The length of the object's whole record ({@link ObjectMetaCodec}'s bytes), which leads the body. In the body
   * rather than a header: a multipart object's record keeps every part's checksum and can outgrow any header limit.
   */
  public static final AsciiString META_LENGTH_HEADER = AsciiString.cached("granary-object-meta-length");
  /** The most record bytes a receiver takes: far above 10,000 parts' SHA-256 checksums (about 0.7 MB). */
  static final int MAX_RECORD_BYTES = 8 << 20;
  /**
   * Present ({@code foreground}) on a copy a client waits for (get-from-neighbor): the receiver commits it ahead of
   * the rebalance's own copies, on a pool of its own.
   */
  public static final AsciiString PRIORITY_HEADER = AsciiString.cached("granary-transfer");
  static final String FOREGROUND = "foreground";
  /** The object's recorded access time, epoch ms (0: none). */
  public static final AsciiString ATIME_HEADER = AsciiString.cached("granary-object-atime");
  static final String BUCKET_ID = "bid";
  static final String TO = "to";
  /**
   * On a push: objects at least this large (bytes) are not waited for; the holder starts the push and answers
   * {@link #RELAY} at once, and the asking owner relays its reader's request from the holder meanwhile.
   */
  static final String RELAY_ABOVE = "relay";
  /** A push's outcome when the object is large: pushed in the background, to be read from the holder meanwhile. */
  static final String RELAY = "relay";
  static final String BEFORE = "before";

  private ObjectTransport() {}

  /**
   * What the receiver did with a copy: {@code {"outcome":"stored|kept|deleted","owner":true|false}}. {@code owner}
   * says whether the receiver owns the object under its map, which is at least as new as the sender's: only then may
   * the sender drop its own copy. A receiver that does not own it (its map is newer and placed the object elsewhere)
   * hands its copy on, and the sender keeps its own until it sends to the owner too, so two targets that each take
   * the other for the owner can never both drop the object.
   */
  public record Answer(String outcome, boolean owner) {
  }

  /** The ETag of the copy a target holds ({@code GET} on an object's transport path). */
  public record Current(String etag) {
  }

  /** {@code PREFIX BUCKET/OBJECT?provider=P}, the object name percent-encoded. */
  static String path(String prefix, BucketProps bucket, String name) {
    return prefix + bucket.bucket().name() + "/" + RequestPath.encodePath(name) + "?provider="
        + bucket.bucket().provider().wireName();
  }

  /**
   * The record's length a sender declared, checked against the body's {@code declaredLength}; 400 when it is
   * missing, malformed, out of bounds or longer than the body.
   */
  static int recordLength(String header, long declaredLength) {
    if (header == null || header.isEmpty()) {
      throw BadRequestException.invalidArgument("a moved object needs the length of its record in "
          + META_LENGTH_HEADER);
    }
    long n;
    try {
      n = Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      throw BadRequestException.invalidArgument("malformed " + META_LENGTH_HEADER + ": " + header);
    }
    if (n < 1 || n > MAX_RECORD_BYTES) {
      throw BadRequestException.invalidArgument(META_LENGTH_HEADER + " must be 1.." + MAX_RECORD_BYTES + ", got " + n);
    }
    if (declaredLength < n) {
      throw BadRequestException.invalidArgument("the body (" + declaredLength + " bytes) is shorter than its record ("
          + n + " bytes)");
    }
    return (int) n;
  }

  /** The record a sender put ahead of the content; 400 when it is undecodable. */
  static ObjectMeta decodeMeta(byte[] record) {
    try {
      return ObjectMetaCodec.decode(record);
    } catch (IOException | RuntimeException e) {
      throw BadRequestException.invalidArgument("undecodable object record: " + e.getMessage());
    }
  }
}
