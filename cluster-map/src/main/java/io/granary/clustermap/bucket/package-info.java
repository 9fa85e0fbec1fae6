/** Bucket metadata (the versioned set of buckets and their properties) and the rules for bucket and object names. */
package io.granary.clustermap.bucket;
