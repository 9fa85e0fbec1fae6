package io.granary.proxy.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.clustermap.ClusterJson;
import io.granary.clustermap.bucket.Provider;
import io.granary.common.error.BadRequestException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PrefetchRequestTest {
  private static JsonNode json(String s) throws Exception {
    return ClusterJson.mapper().readTree(s.replace('\'', '"'));
  }

  @Test
  void parse_prefix_withDefaults() throws Exception {
    PrefetchRequest r = PrefetchRequest.parse(json("{'kind':'prefetch','bucket':'s3://data','prefix':'train/'}"));
    assertThat(r.bucket().provider()).isEqualTo(Provider.AWS);
    assertThat(r.bucket().name()).isEqualTo("data");
    assertThat(r.prefix()).isEqualTo("train/");
    assertThat(r.names()).isNull();
    assertThat(r.latest()).isFalse();
    assertThat(r.concurrency()).isZero();
  }

  @Test
  void parse_namesTemplateLatestConcurrency() throws Exception {
    PrefetchRequest n = PrefetchRequest.parse(json(
        "{'kind':'prefetch','bucket':'gs://bkt','names':['a','b/c'],'latest':true,'concurrency':16}"));
    assertThat(n.names()).containsExactly("a", "b/c");
    assertThat(n.latest()).isTrue();
    assertThat(n.concurrency()).isEqualTo(16);
    PrefetchRequest t = PrefetchRequest.parse(json("{'kind':'prefetch','bucket':'s3://bkt','template':'s-{0..9}'}"));
    assertThat(t.template()).isEqualTo("s-{0..9}");
    assertThat(t.toTarget("pf-1", List.of("t1")).bucket()).isEqualTo("s3://bkt");
  }

  @Test
  void parse_wholeBucket_isEmptyPrefix() throws Exception {
    assertThat(PrefetchRequest.parse(json("{'kind':'prefetch','bucket':'s3://bkt','prefix':''}")).prefix()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "{'bucket':'s3://bkt','prefix':'p'}                                  | kind is required",
      "{'kind':'evict','bucket':'s3://bkt','prefix':'p'}                   | unknown job kind 'evict'",
      "{'kind':'prefetch','prefix':'p'}                                  | bucket is required",
      "{'kind':'prefetch','bucket':'s3://bkt'}                             | one of names, prefix",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':'p','template':'t'} | only one of",
      "{'kind':'prefetch','bucket':'s3://bkt','names':['a'],'prefix':'p'}  | only one of",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':'p','extra':1}      | unknown field 'extra'",
      "{'kind':'prefetch','bucket':'s3://bkt','names':[]}                  | non-empty array",
      "{'kind':'prefetch','bucket':'s3://bkt','names':'a'}                 | non-empty array",
      "{'kind':'prefetch','bucket':'s3://bkt','names':[1]}                 | must be strings",
      "{'kind':'prefetch','bucket':'s3://bkt','names':['../x']}            | '.' or '..'",
      "{'kind':'prefetch','bucket':'s3://bkt','template':''}               | must not be empty",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':5}                  | prefix must be a string",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':'p','latest':'yes'} | latest must be true or false",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':'p','concurrency':0}   | from 1 to 64",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':'p','concurrency':65}  | from 1 to 64",
      "{'kind':'prefetch','bucket':'s3://bkt','prefix':'p','concurrency':1.5} | from 1 to 64",
      "{'kind':'prefetch','bucket':'xx://bkt','prefix':'p'}                | unknown provider",
      "{'kind':'prefetch','bucket':'s3://B_','prefix':'p'}               | invalid bucket name",
      "['prefetch']                                                      | must be a JSON object",
  })
  void parse_bad_is400SayingWhy(String body, String why) throws Exception {
    assertThatThrownBy(() -> PrefetchRequest.parse(json(body))).isInstanceOf(BadRequestException.class)
        .hasMessageContaining(why.trim());
  }

  @Test
  void parse_noBody_is400() {
    assertThatThrownBy(() -> PrefetchRequest.parse(null)).isInstanceOf(BadRequestException.class)
        .satisfies(e -> assertThat(((BadRequestException) e).code()).isEqualTo(BadRequestException.MALFORMED_JSON));
  }

  @Test
  void parseWait_formsAndCap() {
    assertThat(ProxyJobRoutes.parseWait("30s")).hasSeconds(30);
    assertThat(ProxyJobRoutes.parseWait("500ms")).hasMillis(500);
    assertThat(ProxyJobRoutes.parseWait("12")).hasSeconds(12);
    assertThat(ProxyJobRoutes.parseWait("10m")).isEqualTo(ProxyJobs.MAX_WAIT);
    assertThatThrownBy(() -> ProxyJobRoutes.parseWait("soon")).isInstanceOf(BadRequestException.class);
    assertThatThrownBy(() -> ProxyJobRoutes.parseWait("-1s")).isInstanceOf(BadRequestException.class);
  }
}
