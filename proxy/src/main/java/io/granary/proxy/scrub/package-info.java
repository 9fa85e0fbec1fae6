/** The {@code scrub} job behind {@code /v1/jobs}: every target re-hashes a bucket's copies and repairs them. */
package io.granary.proxy.scrub;
