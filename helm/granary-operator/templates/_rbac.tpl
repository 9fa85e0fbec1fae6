{{/*
What the operator does to the objects of a GranaryCluster, in every namespace it watches:
- reads and updates GranaryClusters, their status, and their finalizer, which deletes the targets' PVCs (by
  label, one collection) only when spec.deleteVolumes says so;
- owns the StatefulSets, headless and S3 Services, ConfigMap, cluster Secret and PodDisruptionBudget it creates;
- deletes one target pod at a time in a rolling upgrade, and deletes PVCs only when the spec says so;
- creates the ServiceAccount, Role and RoleBinding the proxies use for their Lease and metadata ConfigMap
  (Kubernetes lets it grant only what it holds itself, hence leases and configmaps here);
- reads EndpointSlices to know which pods are ready, and records Events.
*/}}
{{- define "granary-operator.rules" -}}
- apiGroups: ["granary.io"]
  resources: ["granaryclusters"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["granary.io"]
  resources: ["granaryclusters/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["granary.io"]
  resources: ["granaryclusters/finalizers"]
  verbs: ["update"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["services", "configmaps", "secrets", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "update", "patch", "delete", "deletecollection"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}
