/** Prometheus metrics of one node (client_java 1.x, a registry per node) and the {@code GET /metrics} endpoint. */
package io.granary.common.metrics;
