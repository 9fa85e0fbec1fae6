package io.granary.operator.clusterapi;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The part of {@code GET /v1/cluster/nodes/ID} the operator acts on (docs/http-api.md).
 *
 * @param id the node
 * @param state its state in the map, or {@code decommissioned} once it left it
 * @param safeToRemove it was decommissioned, its objects moved off, and it left the map: its pod and disks may go
 * @param problem why its part in the rebalance does not progress, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeReport(String id, String state, @JsonProperty("safe_to_remove") boolean safeToRemove,
    String problem) {
}
