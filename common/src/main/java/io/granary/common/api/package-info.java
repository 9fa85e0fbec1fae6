/** The native API's shared vocabulary: paths, headers, how a request names a bucket and an object. */
package io.granary.common.api;
