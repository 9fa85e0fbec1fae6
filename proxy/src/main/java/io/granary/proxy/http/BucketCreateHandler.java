package io.granary.proxy.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.api.ApiPaths;
import io.granary.common.api.ObjectAddress;
import io.granary.common.error.BadRequestException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.common.membership.ClusterMetadata;
import io.granary.proxy.membership.ClusterAuthority;
import io.granary.proxy.membership.MetadataPusher;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.Iterator;

/**
 * {@code POST /v1/buckets/BUCKET} on the primary, with an optional JSON body {@code {"checksum":"md5"}}: creates
 * a local bucket (201 with its properties; 409 if it exists). Answers once every active node has the new bucket
 * metadata, so an object PUT right after never meets a target that does not know the bucket.
 */
final class BucketCreateHandler extends JsonRequestHandler {
  static final Duration PUSH_WAIT = Duration.ofSeconds(10);

  private final ClusterAuthority authority;
  private final MetadataPusher pusher;
  private final BoundedExecutor control;

  BucketCreateHandler(ClusterAuthority authority, MetadataPusher pusher, BoundedExecutor control) {
    this.authority = authority;
    this.pusher = pusher;
    this.control = control;
  }

  @Override
  protected void handle(HttpExchange ex, JsonNode body) {
    Bucket bucket = ObjectAddress.bucket(ex.path().decodedAfter(ApiPaths.BUCKETS_SLASH), ex.queryParam("provider"));
    if (bucket.provider() != Provider.AIS) {
      throw BadRequestException.invalidArgument("only local (ais) buckets can be created; remote buckets are registered");
    }
    ChecksumType checksum = checksumOf(body);
    AdminCall.run(ex, control, HttpResponseStatus.CREATED, () -> {
      ClusterMetadata md = authority.createBucket(bucket, checksum);
      pusher.awaitAcked(md, PUSH_WAIT);
      return md.buckets().get(bucket).orElseThrow();
    });
  }

  private static ChecksumType checksumOf(JsonNode body) {
    if (body == null) {
      return ChecksumType.XXHASH64;
    }
    if (!body.isObject()) {
      throw new BadRequestException(BadRequestException.MALFORMED_JSON, "bucket properties must be a JSON object");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("checksum")) {
        throw BadRequestException.invalidArgument("unknown bucket property '" + f + "'; known: checksum");
      }
    }
    JsonNode c = body.get("checksum");
    if (c == null || c.isNull()) {
      return ChecksumType.XXHASH64;
    }
    if (!c.isTextual()) {
      throw BadRequestException.invalidArgument("checksum must be a string: xxhash64, md5, crc32c or sha256");
    }
    try {
      return ChecksumType.parse(c.asText());
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
  }
}
