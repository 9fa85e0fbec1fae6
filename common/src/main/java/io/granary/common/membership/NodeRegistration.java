package io.granary.common.membership;

import io.granary.clustermap.NodeRole;

/**
 * What a node sends the primary to join (or rejoin) the cluster: {@code POST /v1/cluster/join}.
 *
 * @param id the node's persistent id
 * @param role proxy or target
 * @param url where clients and peers reach it
 * @param weight capacity weight for placement (targets), 0 or absent for the default of 1
 */
public record NodeRegistration(String id, NodeRole role, String url, double weight) {
}
