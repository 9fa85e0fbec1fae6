package io.granary.common.s3;

import java.util.List;

/**
 * The ListBuckets answer ({@code GET /}):
 * {@code <ListAllMyBucketsResult><Owner/><Buckets><Bucket><Name/><CreationDate/></Bucket>...</Buckets>}.
 *
 * @param owner the account owning the buckets
 * @param buckets the buckets, in the order to list them (S3: by name)
 */
public record ListAllMyBucketsResult(Owner owner, List<ListedBucket> buckets) implements S3XmlDocument {
  public ListAllMyBucketsResult {
    buckets = List.copyOf(buckets);
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
    xml.end("ListAllMyBucketsResult");
  }
}
