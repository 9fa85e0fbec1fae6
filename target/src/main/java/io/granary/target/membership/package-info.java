/** How a target joins the cluster and keeps its place: registration with the primary, node id. */
package io.granary.target.membership;
