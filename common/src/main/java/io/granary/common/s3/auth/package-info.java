/**
 * S3 request authentication: AWS Signature Version 4 (header and presigned), Version 2, and aws-chunked bodies.
 * Proxies verify every S3 request with it; targets verify the object reads clients send them directly.
 */
package io.granary.common.s3.auth;
