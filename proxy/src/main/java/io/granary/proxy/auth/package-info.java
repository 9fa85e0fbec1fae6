/** S3 request authentication on the proxy: AWS Signature Version 4 (header and presigned) and aws-chunked bodies. */
package io.granary.proxy.auth;
