package io.granary.it.cache;

import io.granary.it.support.Http;
import io.granary.it.support.TestCluster;
import io.granary.testkit.S3ProxyServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Registers remote buckets and reads their objects through a test cluster's native API. */
public final class RemoteBuckets {
  private RemoteBuckets() {}

  /** A client of the S3Proxy server itself, to seed and inspect the remote side. */
  public static S3Client backendClient(S3ProxyServer s3proxy) {
    return S3Client.builder().endpointOverride(s3proxy.endpoint())
        .region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(
                S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
        .build();
  }

  /** {@code POST /v1/buckets/NAME?provider=P} with the given JSON properties. */
  public static Http.Reply register(TestCluster cluster, String provider, String name, String json)
      throws Exception {
    return Http.send(Http.NO_FOLLOW, HttpRequest.newBuilder(URI.create(cluster.endpoint() + "/v1/buckets/" + name
        + "?provider=" + provider)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  /** An S3 bucket behind {@code endpoint} with an AWS credentials file. */
  public static String s3Props(URI endpoint, Path credentials, String ttl, boolean sync) {
    return "{\"backend\":{\"endpoint\":\"" + endpoint + "\",\"pathStyle\":true,\"credentialsFile\":\""
        + credentials.toAbsolutePath() + "\"},\"freshness\":{\"ttl\":\"" + ttl + "\",\"sync\":" + sync + "}}";
  }

  public static String objectUrl(TestCluster cluster, String provider, String bucket, String name, String query) {
    return cluster.endpoint() + "/v1/objects/" + bucket + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8)
        .replace("+", "%20").replace("%2F", "/") + "?provider=" + provider + (query == null ? "" : "&" + query);
  }

  public static Http.Reply get(TestCluster cluster, String provider, String bucket, String name, String query)
      throws Exception {
    return Http.send(Http.FOLLOW, HttpRequest.newBuilder(URI.create(objectUrl(cluster, provider, bucket, name,
        query))).GET());
  }
}
