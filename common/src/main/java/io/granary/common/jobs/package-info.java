/** What proxies and targets share about jobs: the brace-range name templates a prefetch can select objects with. */
package io.granary.common.jobs;
