#!/usr/bin/env bash
# Placement at cluster scale (issue 21 item 6): the time of one owner lookup (HRW over N targets), Granary's
# Rendezvous against the same selection computed one candidate at a time (the loop it had before, AIStore's
# hrw.go loop), in one JVM and interleaved (cluster-map's io.granary.clustermap.hrw.PlacementBench, test scope); and
# the primary's metadata push to N lightweight in-process receivers, against the same bytes PUT to the same
# receivers by a plain HTTP client (proxy's io.granary.proxy.membership.MetasyncBench, test scope).
#
# Prints one JSON document on stdout and writes it to bench/results/placement-<timestamp>.json.
# Progress goes to stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
TARGETS="${TARGETS:-3 100 1000}"          # cluster sizes for the lookup (the goal is read at 1000)
ROUNDS="${ROUNDS:-5}"                     # lookup rounds (interleaved); medians reported
SECONDS_PER_RUN="${SECONDS_PER_RUN:-1}"   # timed seconds per lookup measurement
PUSH_NODES="${PUSH_NODES:-1000}"          # receivers of the metadata push (0: skip the push part)
PUSHES="${PUSHES:-10}"                    # pushes timed after the first
BUILD="${BUILD:-1}"                       # 1: ./mvnw test-compile of cluster-map and proxy first; 0: use their classes
MVN_ARGS="${MVN_ARGS:-}"                  # extra Maven arguments, e.g. "-o"
JVM_OPTS="${JVM_OPTS:-}"                  # extra JVM options for both
KEEP="${KEEP:-0}"                         # 1: keep the work dir

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"
log() { printf '[placement %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for n in $TARGETS; do is_uint "$n" && ((n > 0)) || die "TARGETS must be positive integers, got '$n'"; done
is_uint "$ROUNDS" && ((ROUNDS > 0)) || die "ROUNDS must be a positive integer, got '$ROUNDS'"
[[ "$SECONDS_PER_RUN" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "SECONDS_PER_RUN must be a number of seconds, got '$SECONDS_PER_RUN'"
is_uint "$PUSH_NODES" || die "PUSH_NODES must be a non-negative integer, got '$PUSH_NODES'"
is_uint "$PUSHES" && ((PUSHES > 0)) || die "PUSHES must be a positive integer, got '$PUSHES'"
command -v java >/dev/null || install_missing openjdk-17-jre-headless
command -v python3 >/dev/null || install_missing python3

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-placement.XXXXXX")"
trap 'end_run $? "$WORK" "$KEEP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ((BUILD)); then
  log "compiling cluster-map, proxy and what they need, with their test classes (./mvnw install -DskipTests)"
  # shellcheck disable=SC2086
  (cd "$repo" && ./mvnw -B -q $MVN_ARGS -pl cluster-map,proxy -am install -DskipTests >&2) \
    || die "./mvnw install of cluster-map and proxy failed"
fi
log "resolving the proxy's test classpath"
# shellcheck disable=SC2086
(cd "$repo" && ./mvnw -B -q $MVN_ARGS -pl proxy dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$WORK/proxy.cp" >&2) || die "./mvnw dependency:build-classpath of proxy failed"
lookup_cp="$repo/cluster-map/target/classes:$repo/cluster-map/target/test-classes:$(cat "$WORK/proxy.cp")"
push_cp="$repo/proxy/target/classes:$repo/proxy/target/test-classes:$(cat "$WORK/proxy.cp")"
[[ -f "$repo/cluster-map/target/test-classes/io/granary/clustermap/hrw/PlacementBench.class" ]] \
  || die "cluster-map's test classes are missing: run with BUILD=1"

# ------------------------------------------------------------------------------------------------ runs
loadavg_start="$(cut -d' ' -f1-3 /proc/loadavg)"
T0=$(date +%s)
log "owner lookup: $TARGETS targets, $ROUNDS rounds of ${SECONDS_PER_RUN}s per figure"
# shellcheck disable=SC2086
java $JVM_OPTS -cp "$lookup_cp" io.granary.clustermap.hrw.PlacementBench "$SECONDS_PER_RUN" "$ROUNDS" $TARGETS \
  >"$WORK/lookup.jsonl" || die "PlacementBench failed"
while read -r line; do log "  $line"; done <"$WORK/lookup.jsonl"
: >"$WORK/push.json"
if ((PUSH_NODES > 0)); then
  log "metadata push to $PUSH_NODES in-process receivers"
  # shellcheck disable=SC2086
  java $JVM_OPTS -cp "$push_cp" io.granary.proxy.membership.MetasyncBench "$PUSH_NODES" "$PUSHES" \
    >"$WORK/push.json" \
    || die "MetasyncBench failed"
fi
loadavg_end="$(cut -d' ' -f1-3 /proc/loadavg)"

# ------------------------------------------------------------------------------------------------ report
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/placement-$stamp.json"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | head -1)"
export BENCH_DIR="$here" BENCH_LOOKUP="$WORK/lookup.jsonl" BENCH_PUSH="$WORK/push.json" BENCH_STAMP="$stamp" \
  BENCH_GIT="$git_rev${git_dirty:+-dirty}" BENCH_JAVA="$(java -version 2>&1 | head -1)" \
  BENCH_SECS="$(($(date +%s) - T0))" BENCH_LOAD_START="$loadavg_start" BENCH_LOAD_END="$loadavg_end" \
  TARGETS ROUNDS SECONDS_PER_RUN PUSH_NODES PUSHES JVM_OPTS
python3 - >"$result_file" <<'PY'
import json, os, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
GOAL_LOOKUP_NS = 1000.0  # < 1 us per owner lookup at 1,000 targets (issue 21 item 6)
GOAL_PUSH_S = 2.0        # the map pushed to 1,000 nodes in < 2 s

lookup = [json.loads(l) for l in open(E["BENCH_LOOKUP"]) if l.strip()]
for r in lookup:
    for k in ("uniform", "weighted", "lookup_with_digest"):
        r[k]["speedup"] = round(r[k]["reference_ns"] / r[k]["granary_ns"], 2)
push_text = open(E["BENCH_PUSH"]).read().strip()
push = json.loads(push_text) if push_text else None
at1000 = next((r for r in lookup if r["targets"] == 1000), None)
goals = {}
if at1000:
    goals["lookup_1000_targets"] = {"goal_max_ns": GOAL_LOOKUP_NS, "ns": at1000["uniform"]["granary_ns"],
                                    "ns_with_digest": at1000["lookup_with_digest"]["granary_ns"],
                                    "met": at1000["uniform"]["granary_ns"] < GOAL_LOOKUP_NS}

if push is not None and int(E["PUSH_NODES"]) >= 1000:
    # the slowest push, the first one (fresh connections) included, until every node acked
    s = max(push["push"]["first_s"], push["push"]["max_s"])
    goals["push_1000_nodes"] = {"goal_max_s": GOAL_PUSH_S, "seconds": s, "median_s": push["push"]["median_s"],
                                "reference_median_s": push["reference"]["median_s"], "met": s < GOAL_PUSH_S}
doc = {
    "benchmark": "placement",
    "timestamp": E["BENCH_STAMP"],
    "parameters": {"targets": [int(x) for x in E["TARGETS"].split()], "rounds": int(E["ROUNDS"]),
                   "seconds_per_run": float(E["SECONDS_PER_RUN"]), "push_nodes": int(E["PUSH_NODES"]), "pushes": int(E["PUSHES"]),
                   "jvm_opts": E["JVM_OPTS"],
                   "lookup": "ns per owner lookup over 4,096 keys in turn, one thread; reference: the same "
                             "selection one candidate at a time (Rendezvous before, AIStore's hrw.go loop); "
                             "weighted: every target a different weight (a weight group each, the worst case); "
                             "lookup_with_digest: the placement key's XXH64 of bucket and object name, then the pick"},
    "machine": {**host_facts(), "java": E["BENCH_JAVA"], "granary_git": E["BENCH_GIT"],
                "loadavg_start": E["BENCH_LOAD_START"], "loadavg_end": E["BENCH_LOAD_END"]},
    "lookup": lookup,
    "push": push,
    "goals": goals,
    "all_met": bool(goals) and all(g["met"] for g in goals.values()),
    "seconds": int(E["BENCH_SECS"]),
}
json.dump(doc, sys.stdout, indent=2)
print()
PY
cat "$result_file"
python3 - "$result_file" >&2 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["lookup"]:
    print(f"[placement] {r['targets']} targets: lookup {r['uniform']['granary_ns']} ns (one at a time "
          f"{r['uniform']['reference_ns']} ns, {r['uniform']['speedup']}x); weighted {r['weighted']['granary_ns']} ns "
          f"({r['weighted']['speedup']}x); with the name's digest {r['lookup_with_digest']['granary_ns']} ns")
for name, g in doc["goals"].items():
    print(f"[placement] goal {name}: {g}")
PY
