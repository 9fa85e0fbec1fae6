/**
 * Desired state: one small class per Kubernetes object a GranaryCluster owns, each a pure function of the custom
 * resource (and of what the reconciler decided, such as the replicas to run now).
 */
package io.granary.operator.resources;
