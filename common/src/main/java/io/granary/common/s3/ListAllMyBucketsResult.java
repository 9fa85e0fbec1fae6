package io.granary.common.s3;

import java.util.List;

/**
 * The ListBuckets answer ({@code GET /}):
 * {@code <ListAllMyBucketsResult><Owner/><Buckets><Bucket><Name/><CreationDate/></Bucket>...</Buckets>
 * <ContinuationToken/><Prefix/>}.
 *
 * @param owner the account owning the buckets
 * @param buckets the buckets, in the order to list them (S3: by name)
 * @param continuationToken where the next page starts, when there are more buckets; else null
 * @param prefix the {@code prefix} asked for, or null (written when asked for, as S3 does)
 */
public record ListAllMyBucketsResult(Owner owner, List<ListedBucket> buckets, String continuationToken, String prefix)
    implements S3XmlDocument {
  public ListAllMyBucketsResult {
    buckets = List.copyOf(buckets);
  }

  /** One page holding every bucket. */
  public ListAllMyBucketsResult(Owner owner, List<ListedBucket> buckets) {
    this(owner, buckets, null, null);
  }

  @Override
  public void write(S3XmlWriter xml) {
    xml.startRoot("ListAllMyBucketsResult");
    xml.owner("Owner", owner);
    xml.start("Buckets");
    for (ListedBucket b : buckets) {
      xml.start("Bucket").element("Name", b.name()).element("CreationDate", b.creationDate()).end("Bucket");
    }
    xml.end("Buckets");
    xml.nonEmpty("ContinuationToken", continuationToken);
    if (prefix != null) {
      xml.element("Prefix", prefix);
    }
    xml.end("ListAllMyBucketsResult");
  }
}
