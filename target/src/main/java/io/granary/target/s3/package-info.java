/** The target's S3 object endpoints under {@code /s3/}, reached through a proxy's relay: S3 headers, ETags, XML errors. */
package io.granary.target.s3;
