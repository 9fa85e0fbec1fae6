/** Mirroring as a proxy sees it: the {@code make-n-copies} jobs of {@code /v1/jobs}, summed from the targets. */
package io.granary.proxy.mirror;
