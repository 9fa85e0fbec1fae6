/** Access control: the canned ACLs a bucket or an object may carry. */
package io.granary.clustermap.acl;
