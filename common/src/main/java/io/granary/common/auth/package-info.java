/** Trust between the nodes of one cluster: HMAC signatures on intra-cluster requests and on redirect URLs. */
package io.granary.common.auth;
