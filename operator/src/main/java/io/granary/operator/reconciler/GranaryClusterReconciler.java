package io.granary.operator.reconciler;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.granary.clustermap.ClusterMap;
import io.granary.operator.clusterapi.ClusterApi;
import io.granary.operator.clusterapi.ClusterApiException;
import io.granary.operator.clusterapi.ClusterLocator;
import io.granary.operator.customresource.GranaryCluster;
import io.granary.operator.customresource.GranaryClusterStatus;
import io.granary.operator.resources.ClientService;
import io.granary.operator.resources.ClusterSecret;
import io.granary.operator.resources.HeadlessService;
import io.granary.operator.resources.Labels;
import io.granary.operator.resources.Names;
import io.granary.operator.resources.NodeConfigMap;
import io.granary.operator.resources.NodeRbac;
import io.granary.operator.resources.ProxyStatefulSet;
import io.granary.operator.resources.Role;
import io.granary.operator.resources.TargetDisruptionBudget;
import io.granary.operator.resources.TargetStatefulSet;
import io.granary.common.s3.auth.Credentials;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a GranaryCluster's objects to its spec and reports what it sees. Each pass: check the spec (a bad one is a
 * condition, and nothing is changed), apply the owned objects, decide the target count (scale-down waits for the
 * cluster, see {@link TargetScaling}; removed proxies leave the map, see {@link ProxyScaling}), write the status. While something is in motion it looks again shortly;
 * StatefulSet changes wake it too. Cleanup (the finalizer) deletes the target volumes only when the spec says so.
 */
@ControllerConfiguration(name = "granarycluster")
public final class GranaryClusterReconciler implements Reconciler<GranaryCluster>, Cleaner<GranaryCluster> {
  private static final Logger log = LoggerFactory.getLogger(GranaryClusterReconciler.class);
  /** How soon to look again while scaling, draining or rolling. */
  static final Duration BUSY_POLL = Duration.ofSeconds(2);
  /** How soon to look again when all is well: the map version and rebalance state have no event source. */
  static final Duration STEADY_POLL = Duration.ofSeconds(30);

  private final ClusterLocator locator;
  private final Clock clock;

  public GranaryClusterReconciler(ClusterLocator locator, Clock clock) {
    this.locator = locator;
    this.clock = clock;
  }

  /** StatefulSet changes (pods ready, a rollout's progress) wake the reconciler; owner references map them back. */
  @Override
  public List<EventSource<?, GranaryCluster>> prepareEventSources(EventSourceContext<GranaryCluster> context) {
    InformerEventSourceConfiguration<StatefulSet> config = InformerEventSourceConfiguration
        .from(StatefulSet.class, GranaryCluster.class)
        .withLabelSelector(Labels.MANAGED_BY + "=" + Labels.MANAGER)
        .build();
    return List.of(new InformerEventSource<>(config, context));
  }

  @Override
  public UpdateControl<GranaryCluster> reconcile(GranaryCluster c, Context<GranaryCluster> context) {
    KubernetesClient client = context.getClient();
    Instant now = clock.instant();
    long generation = c.getMetadata().getGeneration() == null ? 0 : c.getMetadata().getGeneration();
    GranaryClusterStatus status = c.getStatus() == null ? new GranaryClusterStatus() : c.getStatus();
    status.observedGeneration = generation;
    status.endpoint = Names.endpoint(c);
    Conditions.remove(status, Conditions.RECONCILED);

    SpecDefaults.fill(c.getSpec());
    List<String> problems = SpecCheck.problems(c.getSpec());
    if (!problems.isEmpty()) {
      String message = String.join("; ", problems);
      log.warn("event=invalid-spec cluster={} generation={} problems=\"{}\"", TargetScaling.key(c), generation,
          message);
      Conditions.set(status, Conditions.SPEC_VALID, false, "InvalidSpec", message, generation, now);
      status.phase = "Invalid";
      c.setStatus(status);
      return UpdateControl.patchStatus(c); // nothing to do until the spec changes
    }
    Conditions.set(status, Conditions.SPEC_VALID, true, "Valid", "", generation, now);

    ResourceApplier applier = new ResourceApplier(client);
    StatefulSet proxies = applyFixedObjects(c, applier);
    StatefulSet liveTargets = client.apps().statefulSets().inNamespace(c.getMetadata().getNamespace())
        .withName(Names.targets(c)).get();
    Integer current = liveTargets == null ? null : liveTargets.getSpec().getReplicas();
    ClusterApi api = null;
    ClusterMap map = null;
    try {
      Optional<Credentials> credentials = AuthCredentials.read(client, c);
      api = locator.api(c, credentials);
      map = api.map();
      Conditions.set(status, Conditions.CLUSTER_REACHABLE, true, "Reachable", "", generation, now);
    } catch (ClusterApiException | IllegalStateException e) {
      // Expected while the proxies start; scaling down waits for the cluster, nothing else needs it.
      Conditions.set(status, Conditions.CLUSTER_REACHABLE, false, "Unreachable", e.getMessage(), generation, now);
    }
    TargetScaling.Decision d = new TargetScaling(locator).decide(c, current, map, api);
    StatefulSet targets = applier.apply(TargetStatefulSet.desired(c, d.replicas()));
    ProxyScaling.Step proxySteps = new ProxyScaling(locator).step(c, map, api);

    observed(c, status, d, proxySteps, proxies, targets, map, now);
    c.setStatus(status);
    boolean busy = !"Running".equals(status.phase) || map == null;
    return UpdateControl.patchStatus(c).rescheduleAfter(busy ? BUSY_POLL : STEADY_POLL);
  }

  /** Everything but the target StatefulSet, whose size the scaling decides; returns the proxies' StatefulSet. */
  private static StatefulSet applyFixedObjects(GranaryCluster c, ResourceApplier applier) {
    applier.apply(NodeRbac.serviceAccount(c));
    applier.apply(NodeRbac.role(c));
    applier.apply(NodeRbac.roleBinding(c));
    applier.createIfAbsent(ClusterSecret.generate(c));
    applier.apply(NodeConfigMap.desired(c));
    applier.apply(HeadlessService.desired(c, Role.PROXY));
    applier.apply(HeadlessService.desired(c, Role.TARGET));
    applier.apply(ClientService.desired(c));
    applier.apply(TargetDisruptionBudget.desired(c));
    return applier.apply(ProxyStatefulSet.desired(c));
  }

  /** The status fields and conditions from what this pass saw and decided. */
  private static void observed(GranaryCluster c, GranaryClusterStatus status, TargetScaling.Decision d,
      ProxyScaling.Step proxySteps, StatefulSet proxies, StatefulSet targets, ClusterMap map, Instant now) {
    long generation = status.observedGeneration;
    status.targets = d.replicas();
    status.readyProxies = ready(proxies);
    status.readyTargets = ready(targets);
    if (map != null) {
      status.mapVersion = map.version();
      status.rebalance = map.rebalance() == null ? null : map.rebalance().state().wireName();
    }
    String detail = d.detail() != null || !proxySteps.pending() ? d.detail()
        : "proxies leaving the map: " + String.join(", ", proxySteps.waiting());
    scalingConditions(c, status, d, detail, map, generation, now);
    boolean rolling = rolling(proxies) || rolling(targets);
    Conditions.set(status, Conditions.UPGRADED, !rolling, rolling ? "RollingUpdate" : "AllPodsCurrent",
        rolling ? "pods are being replaced one at a time" : "", generation, now);
    status.phase = d.phase() != null ? d.phase()
        : proxySteps.pending() ? "ScalingDown"
        : rolling ? "Upgrading"
        : status.readyProxies < c.getSpec().proxy.replicas || status.readyTargets < d.replicas() ? "Creating"
        : "Running";
  }

  private static void scalingConditions(GranaryCluster c, GranaryClusterStatus status, TargetScaling.Decision d,
      String detail, ClusterMap map, long generation, Instant now) {
    if (d.blocked() != null) {
      boolean news = Conditions.find(status.conditions, Conditions.SCALE_DOWN_BLOCKED)
          .map(x -> !"True".equals(x.getStatus()) || !d.blocked().equals(x.getMessage())).orElse(true);
      if (news) {
        log.warn("event=scale-down-blocked cluster={} reason=\"{}\"", TargetScaling.key(c), d.blocked());
      }
      Conditions.set(status, Conditions.SCALE_DOWN_BLOCKED, true, "DecommissionRefused", d.blocked(), generation,
          now);
    } else {
      Conditions.set(status, Conditions.SCALE_DOWN_BLOCKED, false, "NotBlocked", detail == null ? "" : detail,
          generation, now);
    }
    if (map == null) {
      return; // what the rebalance does is unknown: keep the last word
    }
    boolean settled = map.settled() && d.phase() == null;
    Conditions.set(status, Conditions.REBALANCED, settled, settled ? "RebalanceFinished"
        : "Rebalancing", settled ? "" : d.detail() == null ? "targets joining or objects moving" : d.detail(),
        generation, now);
  }

  private static int ready(StatefulSet s) {
    StatefulSetStatus st = s == null ? null : s.getStatus();
    return st == null || st.getReadyReplicas() == null ? 0 : st.getReadyReplicas();
  }

  /** Whether a StatefulSet is replacing pods with a newer template. */
  private static boolean rolling(StatefulSet s) {
    StatefulSetStatus st = s == null ? null : s.getStatus();
    return st != null && st.getUpdateRevision() != null && !st.getUpdateRevision().equals(st.getCurrentRevision());
  }

  @Override
  public ErrorStatusUpdateControl<GranaryCluster> updateErrorStatus(GranaryCluster c, Context<GranaryCluster> context,
      Exception e) {
    GranaryClusterStatus status = c.getStatus() == null ? new GranaryClusterStatus() : c.getStatus();
    long generation = c.getMetadata().getGeneration() == null ? 0 : c.getMetadata().getGeneration();
    log.warn("event=reconcile-failed cluster={} error=\"{}\"", TargetScaling.key(c), e.toString());
    Conditions.set(status, Conditions.RECONCILED, false, "Error", e.getMessage(), generation, clock.instant());
    c.setStatus(status);
    return ErrorStatusUpdateControl.patchStatus(c); // and JOSDK retries with backoff
  }

  @Override
  public DeleteControl cleanup(GranaryCluster c, Context<GranaryCluster> context) {
    // Owned objects go with the cluster (owner references); the targets' volumes only when asked.
    if (c.getSpec() != null && c.getSpec().deleteVolumes) {
      Map<String, String> selector = Labels.selector(c, Role.TARGET);
      context.getClient().persistentVolumeClaims().inNamespace(c.getMetadata().getNamespace()).withLabels(selector)
          .delete();
      log.info("event=deleted cluster={} volumes=deleted", TargetScaling.key(c));
    } else {
      log.info("event=deleted cluster={} volumes=kept", TargetScaling.key(c));
    }
    return DeleteControl.defaultDelete();
  }
}
