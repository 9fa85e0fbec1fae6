package io.granary.proxy.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * What a proxy sends to {@code POST /v1/jobs} on every target; the JSON form of
 * {@code io.granary.target.jobs.PrefetchSpec} (the modules do not share classes, so the JSON is the contract).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
record TargetJobSpec(String id, String bucket, List<String> names, String prefix, String template, boolean latest,
    int concurrency, List<String> targets) {
}
