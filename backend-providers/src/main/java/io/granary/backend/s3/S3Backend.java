package io.granary.backend.s3;

import io.granary.backend.Backend;
import io.granary.backend.BackendConfig;
import io.granary.backend.BackendException;
import io.granary.backend.BackendException.Kind;
import io.granary.backend.PlainHttpGet;
import io.granary.backend.PlainHttpReads;
import io.granary.backend.PutAttributes;
import io.granary.backend.RemoteChecksum;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemotePage;
import io.granary.backend.RemoteRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * {@link Backend} for S3 and S3-compatible stores on the sync {@link S3Client} (Apache HTTP client, pooled), with
 * object GETs sent on the same pool as {@link SignedGet}s, past the SDK's per-request pipeline. Thread-safe; every
 * call blocks. Transient failures are retried before a response body starts; once a {@link RemoteRead} is
 * streaming, a failure is final and surfaces from {@code read}. As {@link PlainHttpReads}, it signs GETs for a
 * caller's own non-blocking client when the endpoint is plain HTTP.
 *
 * <p>Fills {@link RemoteObject}: key, size, etag, version (VersionId when versioned), lastModified, md5 (only for
 * single-part ETags), contentType and userMeta (head/read/put), never crc32c. Listing entries carry key, size,
 * etag, md5 and lastModified. {@link #fullChecksum} asks (a HEAD in checksum mode) for the whole-object checksum S3
 * keeps, which S3 sends for whole-object reads only, never for the ranged ones the cold path makes.
 */
public final class S3Backend implements Backend, PlainHttpReads {
  /** Files above this go up as multipart uploads. */
  static final long MULTIPART_THRESHOLD = 64L << 20;
  /** Multipart part size; 10,000 parts allow objects up to about 156 GiB. */
  static final long PART_SIZE = 16L << 20;

  private final S3Client s3;
  private final SignedGet gets;
  private final SdkHttpClient http;
  private final long multipartThreshold;
  private final long partSize;

  S3Backend(S3Client s3, SignedGet gets, SdkHttpClient http, long multipartThreshold, long partSize) {
    this.s3 = s3;
    this.gets = gets;
    this.http = http;
    this.multipartThreshold = multipartThreshold;
    this.partSize = partSize;
  }

  /** Opens a backend for {@code config} (provider AWS). */
  public static S3Backend open(BackendConfig config) throws BackendException {
    AwsCredentialsProvider credentials = S3ClientFactory.credentials(config);
    Region region = S3ClientFactory.region(config);
    SdkHttpClient http = S3ClientFactory.http(config);
    try {
      SignedGet gets = new SignedGet(http, config.anonymous() ? null : credentials, region.id(),
          new S3ObjectUrls(config.endpoint(), region.id(), config.pathStyle()), config.maxAttempts(),
          config.readTimeout(), config.anonymous() || config.credentialsFile() != null);
      return new S3Backend(S3ClientFactory.client(config, http, credentials), gets, http, MULTIPART_THRESHOLD,
          PART_SIZE);
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
  }

  @Override
  public RemoteObject head(String bucket, String key) throws BackendException {
    try {
      HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket).key(key));
      return S3Objects.of(key, r.contentLength() == null ? 0 : r.contentLength(), r.eTag(), r.versionId(),
          r.lastModified(), r.contentType(), r.metadata());
    } catch (SdkException e) {
      throw S3Errors.map("HEAD", bucket, key, e);
    }
  }

  @Override
  public RemoteChecksum fullChecksum(String bucket, String key, RemoteObject expected) throws BackendException {
    String ifMatch = expected != null && expected.etag() != null ? "\"" + expected.etag() + "\"" : null;
    try {
      return S3FullChecksums.of(s3.headObject(b -> b.bucket(bucket).key(key).ifMatch(ifMatch)
          .checksumMode(ChecksumMode.ENABLED)));
    } catch (SdkException e) {
      throw S3Errors.map("HEAD", bucket, key, e);
    }
  }

  @Override
  public RemoteRead read(String bucket, String key, long offset, long length, RemoteObject expected)
      throws BackendException {
    if (offset < 0) {
      throw new IllegalArgumentException("offset " + offset);
    }
    if (length == 0) {
      return emptyRead(bucket, key, offset, expected);
    }
    String what = SignedGet.what(bucket, key);
    // If-Match keeps ranged pieces of one object from being stitched across versions.
    String ifMatch = expected != null && expected.etag() != null ? "\"" + expected.etag() + "\"" : null;
    SignedGet.Answer answer = gets.send(bucket, key, rangeHeader(offset, length), ifMatch);
    Answer promised;
    try {
      promised = interpret(what, key, offset, length, expected, answer.head().headers());
    } catch (BackendException e) {
      answer.body().abort();
      throw e;
    }
    return new S3RemoteRead(answer.body(), promised.object(), offset, promised.length(), what);
  }

  @Override
  public PlainHttpGet prepare(String bucket, String key, long offset, long length) {
    if (offset < 0 || length == 0) {
      return null; // an empty read sends no GET
    }
    return gets.plain(bucket, key, offset, length, rangeHeader(offset, length));
  }

  @Override
  public Answer answer(PlainHttpGet get, Map<String, List<String>> headers) throws BackendException {
    return interpret(get.what(), get.key(), get.offset(), get.length(), null, headers);
  }

  @Override
  public BackendException failure(PlainHttpGet get, int status, String bodyStart) {
    return SignedGet.failure(get.what(), status, bodyStart);
  }

  private static String rangeHeader(long offset, long length) {
    return offset > 0 || length > 0
        ? "bytes=" + offset + "-" + (length > 0 ? Long.toString(offset + length - 1) : "") : null;
  }

  /** What a 2xx answer's head promises for a read of {@code length} bytes from {@code offset}. */
  private static Answer interpret(String what, String key, long offset, long length, RemoteObject expected,
      Map<String, List<String>> headers) throws BackendException {
    long served = header(headers, "Content-Length").map(S3Backend::parseLength).orElse(-1L);
    String contentRange = header(headers, "Content-Range").orElse(null);
    long total = S3Objects.totalFromContentRange(contentRange);
    if (total < 0) {
      total = contentRange == null ? served : expected == null ? -1 : expected.size();
    }
    boolean whole = contentRange == null; // a 200: the server ignored Range or none was asked
    if (served < 0 || (offset > 0 && whole) || (length > 0 && served > length && !whole)) {
      // Without a length we cannot tell a short body from a whole one; a 200 to a range past 0 is the wrong
      // bytes. A 200 to a range from 0 is the whole object, which serves the range and more (length() says so).
      throw new BackendException(Kind.OTHER, 0, what + ": "
          + (served < 0 ? "no Content-Length" : "Range ignored by the server"));
    }
    RemoteObject object = S3Objects.of(key, total, header(headers, "ETag").orElse(null),
        header(headers, "x-amz-version-id").orElse(null), S3Objects.httpDate(
            header(headers, "Last-Modified").orElse(null)), header(headers, "Content-Type").orElse(null),
        S3Objects.userMeta(headers));
    // Served may be shorter than asked when the range runs past the end: the read promises what S3 promised.
    return new Answer(object, served);
  }

  private static Optional<String> header(Map<String, List<String>> headers, String name) {
    return SdkHttpUtils.firstMatchingHeader(headers, name);
  }

  private static long parseLength(String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A zero-length read sends no GET (S3 has no empty range); a HEAD still checks existence and version. */
  private RemoteRead emptyRead(String bucket, String key, long offset, RemoteObject expected)
      throws BackendException {
    RemoteObject object = head(bucket, key);
    if (expected != null && expected.etag() != null && !expected.etag().equals(object.etag())) {
      throw new BackendException(Kind.CHANGED, 412, "GET s3://" + bucket + "/" + key + ": ETag changed");
    }
    if (offset > object.size()) {
      throw new BackendException(Kind.INVALID_RANGE, 416,
          "GET s3://" + bucket + "/" + key + ": offset " + offset + " past size " + object.size());
    }
    return new S3RemoteRead(null, object, offset, 0, "GET s3://" + bucket + "/" + key);
  }

  @Override
  public RemotePage list(String bucket, String prefix, String delimiter, String startAfter, String token,
      int maxKeys) throws BackendException {
    try {
      ListObjectsV2Response r = s3.listObjectsV2(b -> {
        b.bucket(bucket).maxKeys(maxKeys);
        if (prefix != null && !prefix.isEmpty()) {
          b.prefix(prefix);
        }
        if (delimiter != null) {
          b.delimiter(delimiter);
        }
        if (token != null) {
          b.continuationToken(token);
        } else if (startAfter != null) {
          b.startAfter(startAfter);
        }
      });
      List<RemoteObject> objects = r.contents().stream().map(S3Backend::listed).toList();
      List<String> prefixes = r.commonPrefixes().stream().map(CommonPrefix::prefix).toList();
      String next = Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null;
      return new RemotePage(objects, prefixes, next);
    } catch (SdkException e) {
      throw S3Errors.map("LIST", bucket, prefix, e);
    }
  }

  private static RemoteObject listed(S3Object o) {
    return S3Objects.of(o.key(), o.size() == null ? 0 : o.size(), o.eTag(), null, o.lastModified(), null, null);
  }

  @Override
  public RemoteObject put(String bucket, String key, Path file, PutAttributes attributes) throws BackendException {
    try {
      long size = Files.size(file);
      if (size > multipartThreshold) {
        var r = new S3MultipartUpload(s3, bucket, key, partSize).upload(file, size, attributes);
        return S3Objects.of(key, size, r.eTag(), r.versionId(), null, attributes.contentType(),
            attributes.userMeta());
      }
      PutObjectRequest.Builder req = PutObjectRequest.builder().bucket(bucket).key(key).contentLength(size)
          .contentType(attributes.contentType()).metadata(attributes.userMeta());
      if (attributes.md5Hex() != null) {
        // The remote rejects the upload (400 BadDigest) if what arrived differs from what we hashed.
        req.contentMD5(Base64.getEncoder().encodeToString(HexFormat.of().parseHex(attributes.md5Hex())));
      }
      var r = s3.putObject(req.build(), RequestBody.fromFile(file));
      return S3Objects.of(key, size, r.eTag(), r.versionId(), null, attributes.contentType(),
          attributes.userMeta());
    } catch (SdkException e) {
      throw S3Errors.map("PUT", bucket, key, e);
    } catch (UncheckedIOException e) {
      throw new BackendException(Kind.OTHER, 0, "PUT s3://" + bucket + "/" + key + ": reading " + file, e);
    } catch (IOException e) {
      throw new BackendException(Kind.OTHER, 0, "PUT s3://" + bucket + "/" + key + ": reading " + file, e);
    }
  }

  @Override
  public void delete(String bucket, String key) throws BackendException {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (S3Exception e) {
      // Some S3-compatible stores answer 404 for an absent key; only a missing bucket is an error.
      if (e.statusCode() == 404 && (e.awsErrorDetails() == null
          || !"NoSuchBucket".equals(e.awsErrorDetails().errorCode()))) {
        return;
      }
      throw S3Errors.map("DELETE", bucket, key, e);
    } catch (SdkException e) {
      throw S3Errors.map("DELETE", bucket, key, e);
    }
  }

  @Override
  public void close() {
    s3.close();
    http.close(); // the client does not close an HTTP client it was given
  }
}
