/** The node-side view of cluster metadata: the newest cluster map and bucket metadata, persisted and checked. */
package io.granary.common.membership;
