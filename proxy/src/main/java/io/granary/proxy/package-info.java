/** The gateway node: wiring of its HTTP API, routing and, on the primary, cluster-metadata authority. */
package io.granary.proxy;
