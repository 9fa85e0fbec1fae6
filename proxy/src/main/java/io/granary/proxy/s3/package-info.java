/** The proxy's S3-compatible API: path-style requests at the root and under /s3/, authenticated, then served or relayed. */
package io.granary.proxy.s3;
