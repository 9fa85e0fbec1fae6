/**
 * Remote buckets behind the cache: one {@link io.granary.backend.Backend} interface (head, ranged read, list
 * pages, put, delete) with an S3 implementation (aws-sdk-java-v2) and a GCS one (google-cloud-storage). Nothing
 * here knows about HTTP servers, disks or the cluster; the target decides what to cache.
 */
package io.granary.backend;
