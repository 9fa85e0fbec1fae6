/** The S3 (and S3-compatible) backend on aws-sdk-java-v2's sync client with the Apache HTTP client. */
package io.granary.backend.s3;
