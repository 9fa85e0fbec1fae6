package io.granary.loader.protocol;

import io.granary.common.http.RequestPath;
import io.granary.loader.LoaderException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.function.Supplier;

/**
 * Plain {@code GET BASE_URL/NAME}: the same GET workload against nginx or any static file server, for
 * comparison. GETs only; redirects are followed.
 */
public final class HttpGetClient implements ObjectClient {
  private final URI base;
  private final HttpClient http = JdkHttp.client();
  private final Http1Gets gets = JdkHttp.gets();

  public HttpGetClient(URI base) {
    this.base = base;
  }

  private URI object(String name) {
    return URI.create(base + "/" + RequestPath.encodePath(name));
  }

  @Override
  public void probe(String sampleName) {
    URI u = sampleName == null ? URI.create(base + "/") : object(sampleName);
    HttpResponse<byte[]> r;
    try {
      r = http.send(HttpRequest.newBuilder(u).method("HEAD", HttpRequest.BodyPublishers.noBody())
          .timeout(JdkHttp.CONNECT_TIMEOUT.multipliedBy(2)).build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (Exception e) {
      throw JdkHttp.unreachable(base, e);
    }
    if (r.statusCode() / 100 != 2 && r.statusCode() / 100 != 3) {
      throw new LoaderException("probe GET of " + u + " answered " + r.statusCode());
    }
  }

  @Override
  public long get(String name, BodyConsumer consumer) throws Exception {
    return get(name, 0, 0, consumer);
  }

  @Override
  public long get(String name, long offset, long length, BodyConsumer consumer) throws Exception {
    String range = ObjectClient.rangeHeader(offset, length);
    return JdkHttp.consume(gets.get(object(name), range), range, consumer);
  }

  @Override
  public void put(String name, long size, Supplier<InputStream> content) {
    throw new UnsupportedOperationException("--protocol http only GETs");
  }

  @Override
  public void delete(String name) {
    throw new UnsupportedOperationException("--protocol http only GETs");
  }

  @Override
  public List<String> list() {
    throw new UnsupportedOperationException("--protocol http cannot list: give --names FILE");
  }

  @Override
  public void close() {
    gets.close();
  }
}
