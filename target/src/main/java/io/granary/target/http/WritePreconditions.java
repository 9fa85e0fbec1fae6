package io.granary.target.http;

import io.granary.common.error.BadRequestException;
import io.granary.target.storage.WriteCondition;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Reads the precondition of a write (PutObject, CompleteMultipartUpload, the destination of CopyObject, a native PUT)
 * from its {@code If-Match} / {@code If-None-Match} headers, as S3's conditional writes define them:
 *
 * <ul>
 *   <li>{@code If-None-Match: *}: write only if the object does not exist. Any other value is refused (400
 *       InvalidArgument): S3 accepts only {@code *} on writes, and silently writing would break the caller's
 *       assumption.</li>
 *   <li>{@code If-Match: ETAG}: write only if the object exists with that ETag. One entity tag, quoted
 *       ({@code "abc"}) or bare ({@code abc}, as clients often echo it), of visible characters without quotes, commas
 *       or spaces; {@code *} means "exists". Empty, lists, weak tags ({@code W/"..."}: a write needs strong
 *       comparison, RFC 9110 §13.1.1) and anything else are refused with 400 InvalidArgument, so a malformed header
 *       never degrades into an unconditional write.</li>
 *   <li>Both at once can never hold together and is refused with 400 InvalidArgument.</li>
 * </ul>
 */
public final class WritePreconditions {
  private WritePreconditions() {}

  /** The request's write precondition ({@link WriteCondition#NONE} when it has none); 400 when malformed. */
  public static WriteCondition parse(HttpHeaders h) {
    String ifMatch = h.get(HttpHeaderNames.IF_MATCH);
    String ifNoneMatch = h.get(HttpHeaderNames.IF_NONE_MATCH);
    if (ifMatch != null && ifNoneMatch != null) {
      throw BadRequestException.invalidArgument("If-Match and If-None-Match cannot be combined on a write");
    }
    if (ifNoneMatch != null) {
      if (!ifNoneMatch.strip().equals("*")) {
        throw BadRequestException.invalidArgument("If-None-Match on a write accepts only *, not '" + ifNoneMatch
            + "'");
      }
      return WriteCondition.ifNoneMatchStar();
    }
    if (ifMatch != null) {
      return WriteCondition.ifMatch(entityTag(ifMatch));
    }
    return WriteCondition.NONE;
  }

  /** One strong entity tag, unquoted; {@code *} as is. */
  private static String entityTag(String header) {
    String t = header.strip();
    if (t.equals("*")) {
      return t;
    }
    if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
      t = t.substring(1, t.length() - 1);
    }
    if (t.isEmpty() || !t.chars().allMatch(WritePreconditions::etagChar)) {
      throw BadRequestException.invalidArgument("If-Match must be one entity tag (\"ETAG\") or *, not '" + header
          + "'");
    }
    return t;
  }

  /** Visible ASCII but the double quote, comma and space (RFC 9110 etagc, without obs-text and list syntax). */
  private static boolean etagChar(int c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != ',';
  }
}
