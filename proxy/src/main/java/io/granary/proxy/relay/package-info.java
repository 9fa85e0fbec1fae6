/** The proxy's S3-specific request bodies for the stream-through relay ({@code io.granary.common.http.relay}). */
package io.granary.proxy.relay;
