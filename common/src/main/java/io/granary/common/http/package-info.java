/** Netty HTTP server scaffolding shared by proxies and targets: bootstrap, per-request dispatch, responses. */
package io.granary.common.http;
