package io.granary.proxy.membership;

import io.granary.clustermap.ClusterMap;
import io.granary.common.membership.ClusterMetadataHolder;

/**
 * Who writes cluster metadata, as this proxy sees it now. A fixed primary holds its {@link Term} for good, and a
 * proxy started with {@code --primary URL} follows that URL for good. Under Kubernetes Lease election the role
 * moves: a proxy holds a term while it holds the Lease ({@link #promote}, {@link #demote}), and otherwise follows
 * whichever primary is newest, by epoch, of the one its map names and the one the election announced.
 */
public final class PrimaryRole {
  /** One term as primary: the authority that writes metadata and the pusher that delivers it. */
  public record Term(ClusterAuthority authority, MetadataPusher pusher) {
  }

  /** Where a primary of some epoch said it serves. */
  private record Announced(String url, long epoch) {
  }

  private final String selfId;
  private final ClusterMetadataHolder holder;
  private final String fixedPrimaryUrl;
  private volatile Term term;
  private volatile Announced announced;

  private PrimaryRole(String selfId, ClusterMetadataHolder holder, String fixedPrimaryUrl, Term term) {
    this.selfId = selfId;
    this.holder = holder;
    this.fixedPrimaryUrl = fixedPrimaryUrl;
    this.term = term;
  }

  /** The fixed primary (no election): it holds {@code term} for as long as it runs. */
  public static PrimaryRole fixedPrimary(ClusterMetadataHolder holder, Term term) {
    return new PrimaryRole(holder.nodeId(), holder, null, term);
  }

  /** A proxy that always forwards to the primary at {@code primaryUrl} (no election). */
  public static PrimaryRole follower(ClusterMetadataHolder holder, String primaryUrl) {
    return new PrimaryRole(holder.nodeId(), holder, primaryUrl, null);
  }

  /** A proxy under Lease election: a follower until it wins. */
  public static PrimaryRole elected(ClusterMetadataHolder holder) {
    return new PrimaryRole(holder.nodeId(), holder, null, null);
  }

  /** This proxy's term, or null when it is not the primary. */
  public Term term() {
    return term;
  }

  public boolean primary() {
    return term != null;
  }

  /**
   * Where to send metadata changes: null on the primary, and under election while no other primary is known yet
   * (this proxy's own map may still name itself, from before it was deposed or restarted).
   */
  public String primaryUrl() {
    if (term != null) {
      return null;
    }
    if (fixedPrimaryUrl != null) {
      return fixedPrimaryUrl;
    }
    Announced a = announced;
    ClusterMap map = holder.snapshot().map(s -> s.map()).orElse(null);
    long mapEpoch = map == null ? 0 : map.epoch();
    if (a != null && a.epoch() > mapEpoch) {
      return a.url(); // the election is ahead of the pushes
    }
    // A map naming this proxy is from before it was deposed (or restarted): no primary is known until one speaks.
    return map != null && mapEpoch > 0 && !map.primary().equals(selfId) ? map.primaryNode().url() : null;
  }

  /** The election's record says the primary of {@code epoch} serves at {@code url}. */
  public void announced(String url, long epoch) {
    Announced a = announced;
    if (a == null || epoch >= a.epoch()) {
      announced = new Announced(url, epoch);
    }
  }

  /** This proxy won the election and took over: it is the primary for {@code next}. */
  public void promote(Term next) {
    term = next;
  }

  /** Ends this proxy's term; returns it (null when it had none). */
  public Term demote() {
    Term t = term;
    term = null;
    return t;
  }
}
