package io.granary.target.jobs;

import io.granary.common.jobs.NameTemplate;
import io.granary.backend.RemoteObject;
import io.granary.backend.RemotePage;
import io.granary.clustermap.bucket.BucketProps;
import java.util.List;

/**
 * The object names a job walks, produced lazily and in the same order on every target (each acts only on the
 * names it owns). A prefix is listed from the remote page by page, so memory stays flat however large the bucket.
 */
interface Selection {
  /** Takes one name of the walk. */
  @FunctionalInterface
  interface Sink {
    /**
     * @param size the object's size when the listing told it, else -1
     * @return false to stop the walk (the job was aborted or failed)
     */
    boolean accept(String name, long size) throws InterruptedException;
  }

  /** How many names the walk will produce, when known before walking (names, templates); else -1. */
  long knownTotal();

  /**
   * Whether a name missing from the remote is a failure: yes when the user named it (names, templates); no for a
   * listing, where it can only mean the object was deleted after being listed.
   */
  boolean explicit();

  /** Feeds every name to {@code sink} until the selection ends or the sink says stop. */
  void walk(Sink sink) throws Exception;

  static Selection of(PrefetchSpec spec, BucketProps bucket, RemoteLister lister) {
    if (spec.names() != null) {
      return new Names(spec.names());
    } else if (spec.template() != null) {
      return new Template(NameTemplate.parse(spec.template()));
    }
    return new Prefix(bucket, spec.prefix(), lister);
  }

  /** An explicit list (bounded by the request body size). */
  record Names(List<String> names) implements Selection {
    @Override
    public long knownTotal() {
      return names.size();
    }

    @Override
    public boolean explicit() {
      return true;
    }

    @Override
    public void walk(Sink sink) throws InterruptedException {
      for (String n : names) {
        if (!sink.accept(n, -1)) {
          return;
        }
      }
    }
  }

  /** A brace-range template, expanded one name at a time. */
  record Template(NameTemplate template) implements Selection {
    @Override
    public long knownTotal() {
      return template.size();
    }

    @Override
    public boolean explicit() {
      return true;
    }

    @Override
    public void walk(Sink sink) throws InterruptedException {
      for (String n : template) {
        if (!sink.accept(n, -1)) {
          return;
        }
      }
    }
  }

  /** Everything under a prefix, listed from the remote one page ({@value RemoteLister#PAGE} keys) at a time. */
  record Prefix(BucketProps bucket, String prefix, RemoteLister lister) implements Selection {
    @Override
    public long knownTotal() {
      return -1;
    }

    @Override
    public boolean explicit() {
      return false;
    }

    @Override
    public void walk(Sink sink) throws Exception {
      String token = null;
      do {
        RemotePage page = lister.page(bucket, prefix, token);
        for (RemoteObject o : page.objects()) {
          if (!sink.accept(o.key(), o.size())) {
            return;
          }
        }
        token = page.nextToken();
      } while (token != null && !token.isEmpty());
    }
  }
}
