/** A node's graceful stop: readiness goes false, new connections are refused, in-flight requests finish. */
package io.granary.common.lifecycle;
