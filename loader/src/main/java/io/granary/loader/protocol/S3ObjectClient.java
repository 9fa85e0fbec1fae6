package io.granary.loader.protocol;

import io.granary.clustermap.bucket.Bucket;
import io.granary.loader.LoaderException;
import java.io.IOException;
import java.io.InputStream;
import io.granary.common.http.RequestPath;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 API of one endpoint: PUTs, deletes and listings through aws-sdk-java-v2's sync client (Apache HTTP client,
 * path-style, SigV4), with the SDK's default checksum settings, as users' own S3 clients run; GETs, the load, through
 * the loader's own client ({@link Http1Gets}, signed by {@link S3GetSigner}), so that the loader is not what limits
 * a read load (as aisloader has its own client). SDK retries are off: the loader counts what failed rather than
 * hiding it behind backoff. With {@code direct}, GETs go straight to the owning target's {@code /s3} endpoint, which
 * verifies the same signature (docs/s3-api.md): the owner by HRW over the proxy's map, as for native
 * {@code --direct}; a target that answers 307 (the key is a remote bucket's, or the map moved) is followed once.
 */
public final class S3ObjectClient implements ObjectClient {
  private final URI endpoint;
  private final String bucket;
  private final S3Client s3;
  private final Http1Gets gets = JdkHttp.gets();
  private final S3GetSigner getSigner;
  private final TargetRoutes routes; // null: GETs through the proxy

  public S3ObjectClient(URI endpoint, String bucket, String accessKey, String secretKey, int connections,
      boolean direct) {
    this.endpoint = endpoint;
    this.bucket = bucket;
    this.getSigner = new S3GetSigner(accessKey, secretKey);
    // S3 names a bucket alone: placed as the local bucket of that name, which a remote one's 307 corrects
    this.routes = direct ? new TargetRoutes(endpoint, JdkHttp.client(), Bucket.local(bucket), null) : null;
    this.s3 = S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        // Apache 4 client (deprecated in favour of apache5-client in 2.56, still what most users run).
        .httpClientBuilder(ApacheHttpClient.builder().maxConnections(Math.max(connections, 1))
            .connectionTimeout(Duration.ofSeconds(5)).socketTimeout(Duration.ofMinutes(10)))
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  @Override
  public void probe(String sampleName) {
    try {
      s3.headBucket(b -> b.bucket(bucket));
    } catch (SdkServiceException e) {
      switch (e.statusCode()) {
        case 404 -> throw new LoaderException("bucket '" + bucket + "' does not exist (404 from " + endpoint + ")");
        case 403 -> throw new LoaderException(endpoint + " refused the request (403): check --access-key and "
            + "--secret-key");
        default -> throw new LoaderException("probe of bucket '" + bucket + "' at " + endpoint + " answered "
            + e.statusCode());
      }
    } catch (SdkClientException e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      throw new LoaderException("cannot reach " + endpoint + ": " + (root instanceof ConnectException
          ? "connection refused" : root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage()));
    }
  }

  @Override
  public long get(String name, BodyConsumer consumer) throws Exception {
    return get(name, 0, 0, consumer);
  }

  @Override
  public long get(String name, long offset, long length, BodyConsumer consumer) throws Exception {
    String range = ObjectClient.rangeHeader(offset, length);
    String path = "/" + RequestPath.encodePath(bucket) + "/" + RequestPath.encodePath(name);
    if (routes == null) {
      URI u = URI.create(endpoint + path);
      return JdkHttp.consume(gets.get(u, range, getSigner.sign(u)), range, consumer);
    }
    return JdkHttp.consume(direct(name, path, range), range, consumer);
  }

  /**
   * A GET sent to the owner; a 307 followed once (signed for its host), a 503 or a refused connection retried once
   * under a fresh map, as native {@code --direct} does.
   */
  private Http1Gets.Response direct(String name, String path, String range) throws IOException, InterruptedException {
    TargetRoutes.Route route = routes.current() != null ? routes.current() : routes.fetch();
    try {
      Http1Gets.Response r = signedGet(URI.create(routes.owner(route, name).url() + "/s3" + path), range);
      int status = r.head().status();
      if (status == 307 && r.head().location() != null) {
        r.body().close();
        return signedGet(URI.create(r.head().location()), range);
      }
      if (status != 503) {
        return r;
      }
      r.body().close();
    } catch (ConnectException | StatusException e) {
      // the owner is down, offline or gone: a newer map may place the object elsewhere
    }
    routes.refresh(route);
    return signedGet(URI.create(routes.owner(routes.current(), name).url() + "/s3" + path), range);
  }

  private Http1Gets.Response signedGet(URI u, String range) throws IOException, InterruptedException {
    return gets.get(u, range, getSigner.sign(u));
  }

  @Override
  public void put(String name, long size, Supplier<InputStream> content) {
    s3.putObject(b -> b.bucket(bucket).key(name),
        RequestBody.fromContentProvider(content::get, size, "application/octet-stream"));
  }

  @Override
  public void delete(String name) {
    s3.deleteObject(b -> b.bucket(bucket).key(name));
  }

  @Override
  public List<String> list() {
    List<String> names = new ArrayList<>();
    for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
      names.add(o.key());
    }
    return names;
  }

  @Override
  public void close() {
    gets.close();
    s3.close();
  }
}
