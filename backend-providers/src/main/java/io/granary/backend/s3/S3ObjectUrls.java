package io.granary.backend.s3;

import java.net.URI;
import java.util.regex.Pattern;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * The URL of an S3 object: on the configured endpoint, or AWS's regional one; path-style when configured, else
 * virtual-hosted (bucket in the host name) as S3 addresses buckets today, except for bucket names that cannot be a
 * host name label (dots under TLS break the wildcard certificate; upper case or underscores are legacy names), which
 * fall back to path-style as the SDK does. Keys are percent-encoded once, slashes kept, as S3's SigV4 expects.
 */
final class S3ObjectUrls {
  private static final Pattern VIRTUAL_HOSTABLE = Pattern.compile("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]");

  private final String scheme;
  private final String host;
  private final int port;
  private final String basePath;
  private final boolean pathStyle;

  /** @param endpoint the configured endpoint, or null for {@code https://s3.REGION.amazonaws.com} */
  S3ObjectUrls(URI endpoint, String region, boolean pathStyle) {
    URI base = endpoint != null ? endpoint : URI.create("https://s3." + region + ".amazonaws.com");
    this.scheme = base.getScheme();
    this.host = base.getHost();
    this.port = base.getPort();
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    this.basePath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    this.pathStyle = pathStyle;
  }

  URI object(String bucket, String key) {
    boolean inPath = pathStyle || !VIRTUAL_HOSTABLE.matcher(bucket).matches();
    StringBuilder url = new StringBuilder(64).append(scheme).append("://");
    if (!inPath) {
      url.append(bucket).append('.');
    }
    url.append(host);
    if (port > 0) {
      url.append(':').append(port);
    }
    url.append(basePath).append('/');
    if (inPath) {
      url.append(SdkHttpUtils.urlEncode(bucket)).append('/');
    }
    url.append(SdkHttpUtils.urlEncodeIgnoreSlashes(key));
    return URI.create(url.toString());
  }
}
