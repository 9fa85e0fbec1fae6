package io.granary.cli;

import java.net.URI;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A proxy URL from {@code --endpoint}/{@code --cluster}: {@code http(s)://HOST[:PORT]}, without a trailing slash. A
 * malformed one is one line naming the option's expected form, not the URI parser's text.
 */
final class ProxyUrl implements ITypeConverter<String> {
  @Override
  public String convert(String value) {
    URI u;
    try {
      u = URI.create(value.strip());
    } catch (IllegalArgumentException e) {
      throw notAUrl(value);
    }
    if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
        || u.getHost() == null || u.getRawQuery() != null || u.getRawFragment() != null) {
      throw notAUrl(value);
    }
    String s = u.toString();
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static TypeConversionException notAUrl(String value) {
    return new TypeConversionException("'" + value + "' is not a proxy URL: give http://HOST:PORT (for example "
        + "http://127.0.0.1:51080)");
  }
}
