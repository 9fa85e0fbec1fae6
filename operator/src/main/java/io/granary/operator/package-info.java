/** The Kubernetes operator: runs GranaryCluster resources (entry point {@link io.granary.operator.GranaryOperator}). */
package io.granary.operator;
