/** The target's own Prometheus metrics, read from its existing counters at scrape time. */
package io.granary.target.metrics;
