package io.granary.loader.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The objects GETs pick from: names given up front (a list file or a listing) plus every object this run PUT
 * successfully. Workers pick without locking; adding takes a short lock on the PUT path only. {@link #pick} draws
 * uniformly with replacement; {@link ShuffledRounds} hands the same entries out as shuffled permutations instead.
 *
 * <p>Publication: {@link #add} writes the array, then the element, then the volatile size; {@link #pick} reads the
 * size first, so every index below it is set in whatever (same or newer) array it then reads.
 */
public final class NamePool {
  /** An object to GET; {@code size} is -1 unless this run wrote it (then its content is known: {@link Content}). */
  public record Entry(String name, long size) {
    public boolean written() {
      return size >= 0;
    }
  }

  private volatile Entry[] entries;
  private volatile int size;

  public NamePool(List<String> initial) {
    entries = new Entry[Math.max(16, initial.size() * 2)];
    for (String n : initial) {
      entries[size] = new Entry(n, -1);
      size = size + 1;
    }
  }

  public synchronized void add(Entry e) {
    Entry[] a = entries;
    int n = size;
    if (n == a.length) {
      a = Arrays.copyOf(a, n * 2);
      entries = a;
    }
    a[n] = e;
    size = n + 1;
  }

  /** Entry {@code i}, below a {@link #size()} read before; entries keep their index for the pool's life. */
  public Entry get(int i) {
    return entries[i];
  }

  /** A uniformly random entry (with replacement: {@code --unique-gets=false}), or null while the pool is empty. */
  public Entry pick(Random random) {
    int n = size;
    Entry[] a = entries;
    return n == 0 ? null : a[random.nextInt(n)];
  }

  public int size() {
    return size;
  }

  /** The objects this run wrote (for cleanup). */
  public List<Entry> written() {
    int n = size;
    Entry[] a = entries;
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (a[i].written()) {
        out.add(a[i]);
      }
    }
    return out;
  }
}
