package io.granary.common.api;

import io.granary.clustermap.bucket.Bucket;
import io.granary.clustermap.bucket.BucketName;
import io.granary.clustermap.bucket.InvalidNameException;
import io.granary.clustermap.bucket.ObjectName;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.BadRequestException;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.RequestPath;

/**
 * The bucket and object a native request names: {@code /v1/objects/BUCKET/OBJECT?provider=P}. The object name is
 * everything after the bucket's slash, percent-decoded once; it may contain slashes. Names are validated here, so
 * a bad name is a 400 before anything else happens.
 */
public record ObjectAddress(Bucket bucket, String name) {

  public static ObjectAddress parse(HttpExchange ex) {
    return parse(ex, ApiPaths.OBJECTS);
  }

  /** The address in a path {@code PREFIX BUCKET/OBJECT} (prefix ending in a slash), as {@link #parse(HttpExchange)}. */
  public static ObjectAddress parse(HttpExchange ex, String prefix) {
    RequestPath path = ex.path();
    String rest = path.raw().substring(prefix.length());
    int slash = rest.indexOf('/');
    if (slash < 0) {
      throw new BadRequestException(BadRequestException.INVALID_OBJECT_NAME,
          "object path must be " + prefix + "BUCKET/OBJECT; no object name given");
    }
    Bucket bucket = bucket(RequestPath.decode(rest.substring(0, slash)), ex.queryParam("provider"));
    String name = RequestPath.decode(rest.substring(slash + 1));
    try {
      ObjectName.requireValid(name);
    } catch (InvalidNameException e) {
      throw new BadRequestException(BadRequestException.INVALID_OBJECT_NAME, e.getMessage());
    }
    return new ObjectAddress(bucket, name);
  }

  /**
   * A bucket from its name and optional provider. The name may carry a scheme ({@code s3://b}); otherwise
   * {@code provider} (ais, s3/aws, gs/gcp; default ais) applies.
   */
  public static Bucket bucket(String name, String provider) {
    String n = name;
    String p = provider;
    int scheme = n.indexOf("://");
    if (scheme > 0) {
      p = n.substring(0, scheme);
      n = n.substring(scheme + 3);
    }
    Provider prov;
    try {
      prov = Provider.parse(p == null ? "ais" : p);
    } catch (IllegalArgumentException e) {
      throw BadRequestException.invalidArgument(e.getMessage());
    }
    if (BucketName.problem(n) != null) {
      throw new BadRequestException(BadRequestException.INVALID_BUCKET_NAME,
          "invalid bucket name '" + (n.length() > 80 ? n.substring(0, 77) + "..." : n) + "': " + BucketName.problem(n));
    }
    return new Bucket(prov, n);
  }
}
