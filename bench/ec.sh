#!/usr/bin/env bash
# Erasure-code codec benchmark: Granary's Reed-Solomon (erasure-code module, io.granary.ec.CodecBench in its test
# classes) against klauspost/reedsolomon (bench/ec, the library AIStore uses; SIMD assembly: AVX2, AVX-512, GFNI),
# both on one thread pinned to one core. Per code (D+P): encode, and decode (rebuild P lost data shards from the
# others), in MB/s of data (10^6 bytes of the D data shards per second). Interleaved: each round runs every code
# with ours and each klauspost variant (NATIVE_SIMD: all the CPU's SIMD, the reference of the goal; AVX2 at most;
# pure Go), the order alternating; medians over ROUNDS rounds, and the ratios ours/klauspost.
#
# Prints one JSON document on stdout and writes it to bench/results/ec-<timestamp>.json.
# Progress goes to stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
CODES="${CODES:-4+2 10+4}"                # the codes, D+P each
SHARD_BYTES="${SHARD_BYTES:-1048576}"     # bytes per shard in one encode or decode call
ROUNDS="${ROUNDS:-5}"                     # rounds; medians reported (at least 3 for a figure worth quoting)
NATIVE_SIMD="${NATIVE_SIMD:-auto avx2 none}" # klauspost variants: auto (every SIMD path; required), avx2, none
SECONDS_PER_RUN="${SECONDS_PER_RUN:-3}"   # timed seconds per measurement (after a third of that as warm-up)
CPU="${CPU:-0}"                           # the core both run on (taskset); empty: not pinned
BUILD="${BUILD:-1}"                       # 1: ./mvnw test-compile of erasure-code first (incremental); 0: use its classes
MVN_ARGS="${MVN_ARGS:-}"                  # extra Maven arguments, e.g. "-o -Dmaven.repo.local=/path"
JVM_OPTS="${JVM_OPTS:-}"                  # extra JVM options for ours
GO="${GO:-}"                              # the go command (empty: go on PATH, else /usr/local/go/bin/go)
KEEP="${KEEP:-0}"                         # 1: keep the work dir (the ecref binary, raw results)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[ec %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[ec] ERROR: %s\n' "$*" >&2; exit 1; }

for v in SHARD_BYTES ROUNDS SECONDS_PER_RUN BUILD KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((ROUNDS >= 1)) || die "ROUNDS must be at least 1"
((SECONDS_PER_RUN >= 1)) || die "SECONDS_PER_RUN must be at least 1"
((SHARD_BYTES >= 1 && SHARD_BYTES <= 268435456)) || die "SHARD_BYTES must be between 1 and 268435456, got $SHARD_BYTES"
((BUILD <= 1)) || die "BUILD must be 0 or 1, got '$BUILD'"
((KEEP <= 1)) || die "KEEP must be 0 or 1, got '$KEEP'"
[[ -n "${CODES// /}" ]] || die "CODES is empty"
for c in $CODES; do
  [[ "$c" =~ ^([0-9]+)\+([0-9]+)$ ]] || die "a code is D+P (e.g. 4+2), got '$c' in CODES"
  d=${BASH_REMATCH[1]} p=${BASH_REMATCH[2]}
  ((d >= 1 && p >= 1 && d + p <= 256)) || die "code $c: need 1 <= D, 1 <= P and D+P <= 256"
done
for m in $NATIVE_SIMD; do
  [[ " auto avx2 none " == *" $m "* ]] || die "unknown variant '$m' in NATIVE_SIMD (auto avx2 none)"
done
[[ " $NATIVE_SIMD " == *" auto "* ]] || die "NATIVE_SIMD must include auto, the reference of the goal (got '$NATIVE_SIMD')"
[[ -z "$CPU" ]] || is_uint "$CPU" || die "CPU must be a core number or empty, got '$CPU'"
pin=()
if [[ -n "$CPU" ]]; then
  command -v taskset >/dev/null || install_missing util-linux
  ((CPU < $(nproc))) || die "CPU $CPU does not exist (nproc: $(nproc))"
  pin=(taskset -c "$CPU")
fi

# ------------------------------------------------------------------------------------------------ tools
[[ -n "$GO" ]] || GO="$(command -v go || true)"
[[ -n "$GO" ]] || GO=/usr/local/go/bin/go
[[ -x "$GO" ]] || die "no Go toolchain (looked on PATH and at /usr/local/go/bin/go; set GO): bench/ec needs Go $(sed -n 's/^go //p' "$here/ec/go.mod") or newer"
go_need="$(sed -n 's/^go //p' "$here/ec/go.mod")"
go_have="$("$GO" env GOVERSION | sed 's/^go//')"
[[ "$(printf '%s\n%s\n' "$go_need" "$go_have" | sort -V | head -1)" == "$go_need" ]] \
  || die "Go $go_have is older than the $go_need bench/ec needs (klauspost/reedsolomon v1.14.2's go.mod); set GO"
command -v java >/dev/null || install_missing openjdk-17-jre-headless
command -v python3 >/dev/null || install_missing python3

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-ec.XXXXXX")"
trap 'end_run $? "$WORK" "$KEEP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "building bench/ec with $("$GO" version | cut -d' ' -f3) (modules from the Go module proxy when not cached)"
(cd "$here/ec" && GOFLAGS="${GOFLAGS:--buildvcs=false}" "$GO" build -o "$WORK/ecref" .) || die "go build of bench/ec failed"
if ((BUILD)); then
  log "compiling erasure-code and its test classes (./mvnw test-compile)"
  # shellcheck disable=SC2086
  (cd "$repo" && ./mvnw -B -q $MVN_ARGS -pl erasure-code test-compile >&2) || die "./mvnw test-compile of erasure-code failed"
fi
classes="$repo/erasure-code/target/classes:$repo/erasure-code/target/test-classes"
[[ -f "$repo/erasure-code/target/test-classes/io/granary/ec/CodecBench.class" ]] \
  || die "erasure-code's test classes are missing: run with BUILD=1"

# ------------------------------------------------------------------------------------------------ runs
RUNS="$WORK/runs.jsonl"
: >"$RUNS"
loadavg_start="$(cut -d' ' -f1-3 /proc/loadavg)"
T0=$(date +%s)
run_ours() {
  # shellcheck disable=SC2086
  "${pin[@]}" java $JVM_OPTS -cp "$classes" io.granary.ec.CodecBench "$1" "$2" "$SHARD_BYTES" "$SECONDS_PER_RUN"
}
run_native() {
  GOMAXPROCS=1 "${pin[@]}" "$WORK/ecref" bench -data "$1" -parity "$2" -shard-bytes "$SHARD_BYTES" \
    -seconds "$SECONDS_PER_RUN" -simd "$3"
}
order_odd="ours"
for m in $NATIVE_SIMD; do order_odd="$order_odd native_$m"; done
order_even="$(tr ' ' '\n' <<<"$order_odd" | tac | xargs)"
for ((round = 1; round <= ROUNDS; round++)); do
  for c in $CODES; do
    d=${c%+*} p=${c#*+}
    if ((round % 2)); then order="$order_odd"; else order="$order_even"; fi
    for impl in $order; do
      load="$(cut -d' ' -f1 /proc/loadavg)"
      if [[ "$impl" == ours ]]; then
        line="$(run_ours "$d" "$p")" || die "ours $c failed in round $round"
      else
        line="$(run_native "$d" "$p" "${impl#native_}")" || die "klauspost (${impl#native_}) $c failed in round $round"
      fi
      printf '%s\n' "$line" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r.update(round=int(sys.argv[1]), which=sys.argv[2], loadavg_before=float(sys.argv[3])); print(json.dumps(r))' \
        "$round" "$impl" "$load" >>"$RUNS"
      log "round $round/$ROUNDS $c $impl: $line"
    done
  done
done
loadavg_end="$(cut -d' ' -f1-3 /proc/loadavg)"

# ------------------------------------------------------------------------------------------------ report
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/ec-$stamp.json"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | head -1)"
export BENCH_DIR="$here" BENCH_RUNS="$RUNS" BENCH_STAMP="$stamp" BENCH_GIT="$git_rev${git_dirty:+-dirty}" \
  BENCH_JAVA="$(java -version 2>&1 | head -1)" BENCH_GO="$("$GO" version)" BENCH_SECS="$(($(date +%s) - T0))" \
  BENCH_LOAD_START="$loadavg_start" BENCH_LOAD_END="$loadavg_end" CODES SHARD_BYTES ROUNDS SECONDS_PER_RUN CPU JVM_OPTS \
  NATIVE_SIMD
python3 - >"$result_file" <<'PY'
import json, os, statistics, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
runs = [json.loads(l) for l in open(E["BENCH_RUNS"]) if l.strip()]
GOAL = 0.5  # ours >= 0.5 x native per core (issue 20)

def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                have = set(line.split(":", 1)[1].split())
                return [f for f in ("ssse3", "avx2", "avx512f", "avx512bw", "gfni") if f in have]
    except OSError:
        pass
    return []

variants = ["native_" + m for m in E["NATIVE_SIMD"].split()]
codes = []
for code in E["CODES"].split():
    d, p = (int(x) for x in code.split("+"))
    entry = {"code": code, "data": d, "parity": p}
    for op in ("encode", "decode"):
        figures = {}
        for which in ["ours"] + variants:
            xs = [r[op + "_mb_s"] for r in runs if r["which"] == which and r["data"] == d and r["parity"] == p]
            figures[which] = {"median_mb_s": round(statistics.median(xs), 1), "runs_mb_s": xs}
        ratios = {"ratio_ours_vs_" + w: round(figures["ours"]["median_mb_s"] / figures[w]["median_mb_s"], 3)
                  for w in variants}
        entry[op] = {**figures, **ratios, "goal_met": ratios["ratio_ours_vs_native_auto"] >= GOAL}
    codes.append(entry)

doc = {
    "benchmark": "ec",
    "timestamp": E["BENCH_STAMP"],
    "parameters": {"codes": E["CODES"].split(), "shard_bytes": int(E["SHARD_BYTES"]), "rounds": int(E["ROUNDS"]),
                   "seconds_per_run": int(E["SECONDS_PER_RUN"]), "cpu": E["CPU"] or None,
                   "jvm_opts": E["JVM_OPTS"], "unit": "MB/s of data (10^6 bytes of the D data shards per second), one thread",
                   "decode": "the first P data shards lost, rebuilt from the rest"},
    "machine": {**host_facts(), "cpu_flags": cpu_flags(), "java": E["BENCH_JAVA"], "go": E["BENCH_GO"],
                "granary_git": E["BENCH_GIT"], "loadavg_start": E["BENCH_LOAD_START"], "loadavg_end": E["BENCH_LOAD_END"]},
    "summary": {c["code"]: {op: {"ours_mb_s": c[op]["ours"]["median_mb_s"],
                                 **{w + "_mb_s": c[op][w]["median_mb_s"] for w in variants},
                                 "ratio": c[op]["ratio_ours_vs_native_auto"],
                                 **{"ratio_vs_" + w: c[op]["ratio_ours_vs_" + w] for w in variants if w != "native_auto"}}
                            for op in ("encode", "decode")} for c in codes},
    "goal_min_ratio": GOAL,
    "goal_met_all": all(c[op]["goal_met"] for c in codes for op in ("encode", "decode")),
    "codes": codes,
    "native": "github.com/klauspost/reedsolomon v1.14.2, GOMAXPROCS=1; native_auto: every SIMD path the CPU has "
              "(the goal's reference), native_avx2: GFNI and AVX-512 off, native_none: pure Go",
    "seconds": int(E["BENCH_SECS"]),
    "runs": runs,
}
json.dump(doc, sys.stdout, indent=2)
print()
PY
cat "$result_file"
python3 - "$result_file" >&2 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for code, ops in doc["summary"].items():
    for op, f in ops.items():
        others = ", ".join(f"{k[:-5].replace('native_', 'klauspost ')} {v}" for k, v in f.items()
                           if k.startswith("native_") and k != "native_auto_mb_s")
        print(f"[ec] {code} {op}: ours {f['ours_mb_s']} MB/s, klauspost {f['native_auto_mb_s']} MB/s, "
              f"ratio {f['ratio']}" + (f" (context: {others})" if others else ""))
print(f"[ec] goal (>= {doc['goal_min_ratio']}x klauspost per core) met everywhere: {doc['goal_met_all']}; {sys.argv[1]}")
PY
