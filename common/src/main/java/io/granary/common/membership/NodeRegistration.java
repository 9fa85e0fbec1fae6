package io.granary.common.membership;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.granary.clustermap.NodeRole;

/**
 * What a node sends the primary to join (or rejoin) the cluster: {@code POST /v1/cluster/join}.
 *
 * @param id the node's persistent id
 * @param role proxy or target
 * @param url where clients and peers reach it
 * @param weight capacity weight for placement (targets), 0 or absent for the default of 1
 * @param mapVersion the version of the cluster map the node holds, 0 or absent for none: a new target is active
 *     (in placement) once it registers holding a map, joining until then
 * @param bucketsVersion the version of the bucket metadata the node holds, 0 or absent when not said: a joining
 *     target that says it holds older bucket metadata than the primary's stays joining, so that no client reaches
 *     it before it knows every bucket
 */
public record NodeRegistration(String id, NodeRole role, String url,
    @JsonSetter(nulls = Nulls.AS_EMPTY) double weight,
    @JsonProperty("map_version") @JsonSetter(nulls = Nulls.AS_EMPTY) long mapVersion,
    @JsonProperty("buckets_version") @JsonSetter(nulls = Nulls.AS_EMPTY) long bucketsVersion) {
  /** A registration from a node that holds no cluster map yet. */
  public NodeRegistration(String id, NodeRole role, String url, double weight) {
    this(id, role, url, weight, 0, 0);
  }

  /** A registration saying which map the node holds, and nothing of its bucket metadata. */
  public NodeRegistration(String id, NodeRole role, String url, double weight, long mapVersion) {
    this(id, role, url, weight, mapVersion, 0);
  }

  /** The same registration, saying the node holds map {@code version} (and nothing of its bucket metadata). */
  public NodeRegistration holding(long version) {
    return new NodeRegistration(id, role, url, weight, version, 0);
  }

  /** The same registration, saying the node holds map {@code mapVersion} and bucket metadata {@code buckets}. */
  public NodeRegistration holding(long mapVersion, long buckets) {
    return new NodeRegistration(id, role, url, weight, mapVersion, buckets);
  }
}
