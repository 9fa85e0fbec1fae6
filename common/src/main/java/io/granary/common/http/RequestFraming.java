package io.granary.common.http;

import io.granary.common.error.ApiException;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.HttpVersionNotSupportedException;
import io.granary.common.error.NotImplementedException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses request heads whose framing cannot be trusted, and drops everything a connection sends after a framing
 * error. Pipeline position: right after {@code HttpServerCodec}, before {@link HttpDispatcher}, which answers a
 * refused request (its {@code decoderResult()} is a failure carrying the {@link ApiException} to send) and closes.
 *
 * <p>Why: Netty's {@code HttpObjectDecoder} already fails a malformed, repeated or negative Content-Length and a
 * Content-Length beside Transfer-Encoding (RFC 9112 §6.3), but it frames a body as chunked when any coding is
 * {@code chunked} and otherwise as no body at all. A request with {@code Transfer-Encoding: gzip} would then be
 * served with an empty body (a PUT storing 0 bytes over an object) and its body parsed as the next request (a
 * request smuggled past a front end that framed it differently). RFC 9112 §6.1 and §6.3 make these errors:
 *
 * <ul>
 *   <li>a version other than HTTP/1.0 and HTTP/1.1 (505);
 *   <li>Transfer-Encoding in an HTTP/1.0 request (400; its framing is faulty);
 *   <li>Transfer-Encoding whose final coding is not {@code chunked}, or that names {@code chunked} twice (400);
 *   <li>another coding before the final {@code chunked}: a coding Granary does not decode (501).
 * </ul>
 *
 * <p>After any framing error (these, or one the decoder reported on a head or a chunk) the decoder's idea of where
 * the next request starts is worthless, so nothing more from the connection is passed on.
 */
public final class RequestFraming extends ChannelInboundHandlerAdapter {
  private boolean broken; // a framing error was passed on: drop the rest of the connection's input

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (broken) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpRequest req && req.decoderResult().isSuccess()) {
      ApiException refusal = check(req);
      if (refusal != null) {
        req.setDecoderResult(DecoderResult.failure(refusal));
      }
    }
    if (msg instanceof DecoderResultProvider p && p.decoderResult().isFailure()) {
      broken = true;
    }
    ctx.fireChannelRead(msg);
  }

  /** The error a request head's framing calls for, or null when it is sound. */
  static ApiException check(HttpRequest req) {
    HttpVersion v = req.protocolVersion();
    boolean http11 = v.equals(HttpVersion.HTTP_1_1);
    if (!http11 && !v.equals(HttpVersion.HTTP_1_0)) {
      return new HttpVersionNotSupportedException(v.text());
    }
    List<String> values = req.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
    if (values.isEmpty()) {
      return null;
    }
    if (!http11) {
      return malformed("Transfer-Encoding is not allowed in an HTTP/1.0 request");
    }
    List<String> codings = new ArrayList<>();
    for (String value : values) {
      for (String coding : value.split(",", -1)) {
        if (!coding.isBlank()) { // empty list elements are allowed and ignored (RFC 9110 §5.6.1)
          codings.add(coding.strip());
        }
      }
    }
    String all = String.join(", ", codings);
    if (codings.isEmpty() || !isChunked(codings.get(codings.size() - 1))) {
      return malformed("the final transfer coding must be chunked, got Transfer-Encoding '" + all + "'");
    }
    for (int i = 0; i < codings.size() - 1; i++) {
      if (isChunked(codings.get(i))) {
        return malformed("chunked may be applied only once, got Transfer-Encoding '" + all + "'");
      }
    }
    if (codings.size() > 1) {
      return new NotImplementedException("transfer codings other than chunked are not supported, got "
          + "Transfer-Encoding '" + all + "'");
    }
    return null;
  }

  private static boolean isChunked(String coding) {
    return HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(coding);
  }

  private static BadRequestException malformed(String why) {
    return new BadRequestException("MalformedRequest", why);
  }
}
