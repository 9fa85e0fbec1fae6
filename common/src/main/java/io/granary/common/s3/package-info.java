/**
 * The S3 wire format, for the S3-compatible API of proxies and targets: XML request bodies parsed safely
 * ({@link io.granary.common.s3.CompleteMultipartUpload}, {@link io.granary.common.s3.DeleteRequest},
 * {@link io.granary.common.s3.CreateBucketConfiguration}), XML response documents (each a record implementing
 * {@link io.granary.common.s3.S3XmlDocument}), S3 error codes and error responses
 * ({@link io.granary.common.s3.S3ErrorCodes}, {@link io.granary.common.s3.S3ErrorRenderer}), and the rules S3
 * applies everywhere: dates ({@link io.granary.common.s3.S3Dates}), names ({@link io.granary.common.s3.S3Names}),
 * {@code encoding-type=url} ({@link io.granary.common.s3.S3UrlEncoding}).
 *
 * <p>Nothing here touches storage or routing; the S3 front end computes listings and outcomes and hands them
 * over as records.
 */
package io.granary.common.s3;
