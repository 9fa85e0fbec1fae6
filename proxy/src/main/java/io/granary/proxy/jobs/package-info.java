/** The public job API of proxies: starts prefetch jobs on every target, aggregates their progress, aborts them. */
package io.granary.proxy.jobs;
