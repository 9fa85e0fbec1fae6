package io.granary.proxy.s3;

import io.granary.clustermap.acl.CannedAcl;
import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.ChecksumType;
import io.granary.common.control.ControlClient;
import io.granary.common.http.HttpExchange;
import io.granary.common.s3.CreateBucketConfiguration;
import io.granary.common.s3.S3ApiException;
import io.granary.common.s3.S3Names;
import io.granary.common.http.relay.RequestBody;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code PUT /BUCKET}: CreateBucket, a local bucket with xxhash64 content checksums, the cheapest to compute; S3
 * PUTs compute the MD5 ETag besides, so ETags are MD5s as clients expect.
 * An optional CreateBucketConfiguration is checked and its region ignored: a cluster has one. An existing bucket
 * is 409 BucketAlreadyOwnedByYou. {@code x-amz-acl} (private or public-read) is the new bucket's ACL, set in the
 * same metadata version that creates it.
 */
final class CreateBucketHandler extends S3BodyCollector {
  private final BucketAdmin admin;
  private final String name;
  private final CannedAcl acl;

  CreateBucketHandler(RequestBody body, BucketAdmin admin, String name, CannedAcl acl) {
    super(body, 64 * 1024);
    this.admin = admin;
    this.name = name;
    this.acl = acl;
  }

  @Override
  public void onRequest(HttpExchange ex) {
    String problem = S3Names.bucketProblem(name);
    if (problem != null) {
      throw new S3ApiException(HttpResponseStatus.BAD_REQUEST, "InvalidBucketName",
          "the bucket name '" + name + "' is not valid: " + problem);
    }
  }

  @Override
  protected void handle(HttpExchange ex, byte[] body) {
    if (body.length > 0) {
      CreateBucketConfiguration.parse(body); // malformed XML is 400 MalformedXML
    }
    admin.create(Bucket.local(name), ChecksumType.XXHASH64, acl).whenComplete((ok, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
        return;
      }
      HttpHeaders h = new DefaultHttpHeaders();
      h.set(HttpHeaderNames.LOCATION, "/" + name);
      ex.sendHead(HttpResponseStatus.OK, h);
    });
  }
}
