package io.granary.clustermap.bucket;

import java.util.Comparator;

/**
 * The order of object names in listings: by UTF-8 bytes, unsigned, as S3 lists keys and as RocksDB stores them.
 * (Java's {@code String.compareTo} orders by UTF-16 units, which differs for characters above U+FFFF.)
 */
public final class NameOrder implements Comparator<String> {
  public static final NameOrder INSTANCE = new NameOrder();

  private NameOrder() {}

  @Override
  public int compare(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        // Surrogates (U+D800..U+DFFF) encode code points above U+FFFF, which sort after every BMP character in UTF-8.
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        if (sx != sy) {
          return sx ? 1 : -1;
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }
}
