/** Pooled keep-alive HTTP connections from one node to another, on the caller's event loop, for streaming relays. */
package io.granary.common.http.client;
