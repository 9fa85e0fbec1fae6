/**
 * Primary election in Kubernetes: every proxy campaigns for a {@code Lease}; the holder is the primary, resumes
 * from the metadata recorded in the {@code <lease>-metadata} ConfigMap, records every change there before pushing
 * it, and is fenced by the epoch it carries in the cluster map. Opt-in ({@code granary proxy --k8s-lease NAME}).
 */
package io.granary.proxy.k8s;
