package io.granary.it.support;

import io.granary.common.http.RequestPath;
import java.util.List;
import java.util.Random;

/** Random object names of the kinds users have: slashes, unicode, spaces, characters URLs must escape. */
public final class Names {
  private static final List<String> PARTS = List.of("images", "train", "shard", "ünïcødé", "日本語", "данные", "emoji😀",
      "with space", "a+b", "100%", "q?mark", "hash#tag", "semi;colon", "tab\tbed", "x", "..dots", "trailing.",
      "UPPER", "mixed_Case-09", "€uro", "🙂🙃");

  private Names() {}

  public static String random(Random r, int i) {
    StringBuilder sb = new StringBuilder();
    int segs = 1 + r.nextInt(4);
    for (int s = 0; s < segs; s++) {
      if (s > 0) {
        sb.append(r.nextInt(25) == 0 ? "//" : "/");
      }
      sb.append(PARTS.get(r.nextInt(PARTS.size())));
    }
    return sb.append('-').append(i).toString();
  }

  /** The native API URL of an object. */
  public static String url(String endpoint, String bucket, String name) {
    return endpoint + "/v1/objects/" + bucket + "/" + RequestPath.encodePath(name);
  }
}
