/** The reconciler: applies the desired objects, scales targets safely through the cluster API, reports status. */
package io.granary.operator.reconciler;
