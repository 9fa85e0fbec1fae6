/** The proxy's HTTP API: object redirects, bucket admin, merged listings, cluster membership endpoints. */
package io.granary.proxy.http;
