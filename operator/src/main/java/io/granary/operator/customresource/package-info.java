/** The GranaryCluster custom resource: its spec, its status, and the CRD generated from them. */
package io.granary.operator.customresource;
