/** The primary's authority over cluster metadata: joins, node states, buckets, ordered push, health checks. */
package io.granary.proxy.membership;
