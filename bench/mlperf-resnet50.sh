#!/usr/bin/env bash
# MLPerf Storage-style ResNet-50 accelerator search (granary load --workload resnet50 --search), fed by Granary
# (native API through the proxy's 307, straight from the targets with --direct, and S3 through the proxy) and by
# nginx serving the same files: the most emulated accelerators each source keeps at AU >= 90%, and Granary's figure /
# nginx's.
#
# Prints one JSON document on stdout and writes it to bench/results/mlperf-resnet50-<timestamp>.json.
# Progress goes to stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
MAX_ACCELERATORS="${MAX_ACCELERATORS:-16}" # the search's upper bound; the dataset is sized to give each this many steps
STEPS="${STEPS:-3}"                        # steps per epoch of each accelerator (>= 2; AU excludes the first)
SAMPLES_PER_FILE="${SAMPLES_PER_FILE:-200}" # samples (114,660 B each) per file; DLIO's is 1251
FILES="${FILES:-}"                         # files in the dataset; default: just enough for MAX_ACCELERATORS x STEPS
EPOCHS="${EPOCHS:-3}"                      # epochs per probe (the same files re-read; MLPerf runs 5)
ROUNDS="${ROUNDS:-3}"                      # searches per source, the sources alternating; medians are reported
START="${START:-1}"                        # accelerators of the search's first probe
READ_THREADS="${READ_THREADS:-}"           # reader threads per accelerator; default the workload's (8)
SOURCES="${SOURCES:-native direct s3 nginx}" # what feeds the accelerators (native and nginx are required)
WARMUP="${WARMUP:-1}"                      # 1: one untimed 2-accelerator run per source first (the JVMs' JIT)
SEED="${SEED:-0}"                          # dataset content; Granary and nginx get the same bytes
GEN_WORKERS="${GEN_WORKERS:-4}"            # parallel PUTs / file writes while generating the dataset
TARGETS="${TARGETS:-1}"                    # Granary targets; 1 compares one server against one server
GRANARY_ARGS="${GRANARY_ARGS:-}"           # extra arguments for `granary local`, e.g. "--jvm-opt=-Xmx1g"
LOADER_JVM_OPTS="${LOADER_JVM_OPTS:-}"     # JVM options of the loader (the emulated accelerators), e.g. "-Xmx1g"
BUILD="${BUILD:-auto}"                     # auto: ./granary builds if sources changed; 0: use cli/target as it is
START_TIMEOUT="${START_TIMEOUT:-180}"      # seconds to wait for the local cluster
KEEP="${KEEP:-0}"                          # 1: keep the temporary work dir (dataset, logs, loader output)
BUCKET="${BUCKET:-bench}"

RECORD_BYTES=114660 # DLIO's resnet50 record_length_bytes (114,660.07), as the loader uses it
BATCH=400           # DLIO's resnet50 batch_size
GOAL=0.9            # accelerators fed by Granary >= 0.9 x fed by nginx

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[mlperf-resnet50 %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[mlperf-resnet50] ERROR: %s\n' "$*" >&2; exit 1; }

for v in MAX_ACCELERATORS STEPS SAMPLES_PER_FILE EPOCHS ROUNDS START WARMUP SEED GEN_WORKERS TARGETS START_TIMEOUT; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
[[ -z "$FILES" ]] || is_uint "$FILES" || die "FILES must be a positive integer, got '$FILES'"
[[ -z "$READ_THREADS" ]] || { is_uint "$READ_THREADS" && ((READ_THREADS >= 1 && READ_THREADS <= 256)); } \
  || die "READ_THREADS must be 1 to 256, got '$READ_THREADS'"
((MAX_ACCELERATORS >= 1 && MAX_ACCELERATORS <= 1024)) || die "MAX_ACCELERATORS must be 1 to 1024"
((START >= 1 && START <= MAX_ACCELERATORS)) || die "START must be 1 to MAX_ACCELERATORS ($MAX_ACCELERATORS), got $START"
((STEPS >= 2)) || die "STEPS must be at least 2 (AU excludes the first step), got $STEPS"
((SAMPLES_PER_FILE >= 1 && SAMPLES_PER_FILE <= 1000000)) || die "SAMPLES_PER_FILE must be 1 to 1000000"
((EPOCHS >= 1 && EPOCHS <= 1000)) || die "EPOCHS must be 1 to 1000"
((ROUNDS >= 1)) || die "ROUNDS must be at least 1"
((WARMUP <= 1)) || die "WARMUP must be 0 or 1, got $WARMUP"
((GEN_WORKERS >= 1 && GEN_WORKERS <= 1000)) || die "GEN_WORKERS must be 1 to 1000"
((TARGETS >= 1)) || die "TARGETS must be at least 1"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"
[[ "$KEEP" == 0 || "$KEEP" == 1 ]] || die "KEEP must be 0 or 1, got '$KEEP'"
[[ "$BUCKET" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] || die "BUCKET '$BUCKET' is not a valid bucket name"
for s in $SOURCES; do
  [[ " native direct s3 nginx " == *" $s "* ]] || die "unknown source '$s' in SOURCES (native direct s3 nginx)"
done
[[ " $SOURCES " == *" native "* && " $SOURCES " == *" nginx "* ]] \
  || die "SOURCES must include native and nginx, the two sides of the ratio (got '$SOURCES')"
# Each accelerator needs STEPS batches from its own files (accelerator r of N reads files r, r+N, ...) every epoch.
FILES_PER_ACCEL=$(((STEPS * BATCH + SAMPLES_PER_FILE - 1) / SAMPLES_PER_FILE))
[[ -n "$FILES" ]] || FILES=$((MAX_ACCELERATORS * FILES_PER_ACCEL))
((FILES >= 1)) || die "FILES must be at least 1"
# shellcheck disable=SC2017 # the floor is meant: accelerators get whole files
((FILES / MAX_ACCELERATORS * SAMPLES_PER_FILE >= STEPS * BATCH)) \
  || die "FILES=$FILES of $SAMPLES_PER_FILE samples give each of $MAX_ACCELERATORS accelerators fewer than STEPS=$STEPS batches of $BATCH: use at least FILES=$((MAX_ACCELERATORS * FILES_PER_ACCEL)), or leave FILES unset"
DATASET_BYTES=$((FILES * SAMPLES_PER_FILE * RECORD_BYTES))
WARM_ACCEL=$((MAX_ACCELERATORS < 2 ? MAX_ACCELERATORS : 2))
# CHECK_ONLY=1: validate the knobs and stop (bench/compare.sh checks every part's knobs before the first runs)
[[ "${CHECK_ONLY:-0}" != 1 ]] || exit 0

# ------------------------------------------------------------------------------------------------ cleanup
WORK=""
NGINX_PID=""
GRANARY_PID=""
LOADER_PID=""


# Our processes only: their command line mentions our work dir (another developer may run Granary or nginx too).

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n "$LOADER_PID" ]] && kill -0 "$LOADER_PID" 2>/dev/null; then
    log "stopping the loader (pid $LOADER_PID)"
    stop_pid "$LOADER_PID" TERM 10
  fi
  if [[ -n "$NGINX_PID" ]] && kill -0 "$NGINX_PID" 2>/dev/null; then
    log "stopping nginx (master pid $NGINX_PID)"
    stop_nginx "$NGINX_PID"
  fi
  if [[ -n "$GRANARY_PID" ]] && kill -0 "$GRANARY_PID" 2>/dev/null; then
    log "stopping granary local (pid $GRANARY_PID)"
    stop_pid "$GRANARY_PID" TERM 60
  fi
  end_run "$rc" "$WORK" "$KEEP"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ------------------------------------------------------------------------------------------------ tools
need=()
nginx_missing && need+=(nginx)
command -v curl >/dev/null || need+=(curl)
command -v python3 >/dev/null || need+=(python3)
command -v pgrep >/dev/null || need+=(procps)
command -v java >/dev/null || need+=(openjdk-17-jre-headless)
install_missing "${need[@]}"
NGINX_BIN="$(nginx_bin)"
for t in curl python3 java sha256sum head pgrep du; do
  command -v "$t" >/dev/null || die "required tool '$t' is missing"
done

now() { echo "$EPOCHREALTIME"; }
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$2"; }

# ------------------------------------------------------------------------------------------------ work dir
T_START="$(now)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-mlperf.XXXXXX")"
chmod 755 "$WORK"
WWW="$WORK/www"
mkdir -p "$WWW" "$WORK/granary" "$WORK/loader" "$WORK/nginx/tmp"
log "work dir $WORK"
log "dataset: $FILES files x $SAMPLES_PER_FILE samples of $RECORD_BYTES B = $(python3 -c "print(round($DATASET_BYTES / 2**20))") MiB (one copy in Granary, one in nginx's root)"

# ------------------------------------------------------------------------------------------------ granary distribution
# Build if needed, then run a private copy: another developer may rebuild cli/target while this runs, and the
# copy's path marks this run's processes (cluster nodes and loaders alike).
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
GRANARY_JAR_MTIME="$(date -u -r "$repo/cli/target/granary.jar" +%Y-%m-%dT%H:%M:%SZ)"
java -jar "$WORK/dist/granary.jar" load --help 2>/dev/null | grep -q -- '--generate-dir' \
  || die "this granary.jar has no MLPerf mode (granary load --workload ... --generate-dir): rebuild it (BUILD=auto)"

# ------------------------------------------------------------------------------------------------ nginx
start_nginx "$NGINX_BIN" "$WORK/nginx" "$WWW"
log "nginx up on $NGINX_URL (master pid $NGINX_PID), root $WWW"

# ------------------------------------------------------------------------------------------------ granary
GRANARY_PORT="$(free_ports $((TARGETS + 1)))"
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
# The cluster signs its 307s with this secret; the loader's --direct signs with it too (it reads it from the env).
GRANARY_CLUSTER_SECRET="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export GRANARY_CLUSTER_SECRET
start_granary_local
S3_ACCESS_KEY="$(grep -o 'AWS_ACCESS_KEY_ID=[^ ]*' "$WORK/granary-local.out" | cut -d= -f2)"
S3_SECRET_KEY="$(grep -o 'AWS_SECRET_ACCESS_KEY=[^ ]*' "$WORK/granary-local.out" | cut -d= -f2)"
[[ -n "$S3_ACCESS_KEY" && -n "$S3_SECRET_KEY" ]] || [[ " $SOURCES " != *" s3 "* ]] || die "granary local printed no S3 keys"
code="$(curl -s -o "$WORK/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/$BUCKET")"
[[ "$code" =~ ^2 ]] || { cat "$WORK/bucket.out" >&2; die "creating bucket $BUCKET answered HTTP $code"; }

# ------------------------------------------------------------------------------------------------ loader
# run_loader LABEL ARGS...: one `granary load` in the background (so cleanup can stop it), output to
# WORK/loader/LABEL.out; dies with its last lines if it fails.
run_loader() {
  local label="$1" rc=0
  shift
  # shellcheck disable=SC2086 # LOADER_JVM_OPTS is a list of words on purpose
  java $LOADER_JVM_OPTS -jar "$WORK/dist/granary.jar" load "$@" >"$WORK/loader/$label.out" 2>&1 &
  LOADER_PID=$!
  wait "$LOADER_PID" || rc=$?
  LOADER_PID=""
  ((rc == 0)) || { tail -n 20 "$WORK/loader/$label.out" >&2; die "granary load ($label) exited with status $rc"; }
}

COMMON=(--workload resnet50 --files "$FILES" --samples-per-file "$SAMPLES_PER_FILE" --seed "$SEED")
RUN_ARGS=(--steps-per-epoch "$STEPS")
[[ -z "$READ_THREADS" ]] || RUN_ARGS+=(--read-threads "$READ_THREADS")
source_args() { # source -> the loader's endpoint arguments, one per line
  case "$1" in
    native) printf '%s\n' --protocol native --endpoint "$PROXY_URL" --bucket "$BUCKET" ;;
    direct) printf '%s\n' --protocol native --endpoint "$PROXY_URL" --bucket "$BUCKET" --direct ;;
    s3) printf '%s\n' --protocol s3 --endpoint "$PROXY_URL" --bucket "$BUCKET" --access-key "$S3_ACCESS_KEY" \
      --secret-key "$S3_SECRET_KEY" ;;
    nginx) printf '%s\n' --protocol http --endpoint "$NGINX_URL" ;;
  esac
}

# ------------------------------------------------------------------------------------------------ dataset
t0="$(now)"
run_loader generate-granary "${COMMON[@]}" --protocol native --endpoint "$PROXY_URL" --bucket "$BUCKET" \
  --generate --generate-only --workers "$GEN_WORKERS"
GEN_GRANARY_S="$(elapsed "$t0" "$(now)")"
log "generated the dataset into bucket $BUCKET in ${GEN_GRANARY_S}s: $(tail -n 1 "$WORK/loader/generate-granary.out")"
t0="$(now)"
run_loader generate-nginx "${COMMON[@]}" --protocol http --endpoint "$NGINX_URL" --generate-dir "$WWW" \
  --generate-only --workers "$GEN_WORKERS"
GEN_NGINX_S="$(elapsed "$t0" "$(now)")"
log "generated the dataset into $WWW in ${GEN_NGINX_S}s: $(tail -n 1 "$WORK/loader/generate-nginx.out")"
chmod -R a+rX "$WWW"
nfiles="$(find "$WWW" -type f -name '*.tfrecord' | wc -l)"
nbytes="$(find "$WWW" -type f -name '*.tfrecord' -printf '%s\n' | awk '{s += $1} END {printf "%.0f\n", s}')"
((nfiles == FILES && nbytes == DATASET_BYTES)) \
  || die "nginx's root holds $nfiles files of $nbytes bytes, expected $FILES files of $DATASET_BYTES bytes"

# Same seed, same bytes: the first and the last file, from nginx and through the proxy's 307, must be identical.
for f in $(find "$WWW" -type f -name '*.tfrecord' -printf '%P\n' | sort | sed -n '1p;$p'); do
  code="$(curl -s -o "$WORK/check-nginx.bin" -w '%{http_code}' "$NGINX_URL/$f")" || die "GET $NGINX_URL/$f failed"
  [[ "$code" == 200 ]] || die "correctness check: nginx GET /$f answered HTTP $code"
  code="$(curl -s -L -o "$WORK/check-granary.bin" -w '%{http_code}' "$PROXY_URL/v1/objects/$BUCKET/$f")" \
    || die "GET $PROXY_URL/v1/objects/$BUCKET/$f failed"
  [[ "$code" == 200 ]] || die "correctness check: Granary GET of $f answered HTTP $code"
  want="$(sha "$WWW/$f")"
  [[ "$(sha "$WORK/check-nginx.bin")" == "$want" && "$(sha "$WORK/check-granary.bin")" == "$want" ]] \
    || die "correctness check: $f differs between the file, nginx and Granary"
done
rm -f "$WORK"/check-*.bin
log "sha256 ok: nginx and Granary serve the same bytes"
cat "$WWW"/*/train/* >/dev/null # nginx's copy into the page cache (Granary's was just written)

# ------------------------------------------------------------------------------------------------ warm-up and searches
MEASURE_START="$(now)"
if ((WARMUP)); then
  for src in $SOURCES; do
    mapfile -t sargs < <(source_args "$src")
    log "warm-up (not reported): $WARM_ACCEL accelerator(s), 1 epoch, fed by $src"
    run_loader "warmup-$src" "${COMMON[@]}" "${RUN_ARGS[@]}" "${sargs[@]}" --accelerators "$WARM_ACCEL" \
      --json "$WORK/loader/warmup-$src.json"
  done
fi

read -r -a order <<<"$SOURCES"
for ((r = 1; r <= ROUNDS; r++)); do
  # alternate the order, so that no source always runs first (or last) after the others
  if ((r % 2 == 0)); then
    srcs=()
    for ((i = ${#order[@]} - 1; i >= 0; i--)); do srcs+=("${order[i]}"); done
  else
    srcs=("${order[@]}")
  fi
  for src in "${srcs[@]}"; do
    mapfile -t sargs < <(source_args "$src")
    log "round $r/$ROUNDS: search $START to $MAX_ACCELERATORS accelerators, $EPOCHS epoch(s) of $STEPS steps, fed by $src"
    run_loader "search-$src-r$r" "${COMMON[@]}" "${RUN_ARGS[@]}" "${sargs[@]}" --epochs "$EPOCHS" --search \
      --accelerators "$START" --max-accelerators "$MAX_ACCELERATORS" --json "$WORK/loader/search-$src-r$r.json"
    grep -E '^(Search|Result):' "$WORK/loader/search-$src-r$r.out" | sed 's/^/    /' >&2 || true
  done
done
MEASURE_SECS="$(elapsed "$MEASURE_START" "$(now)")"

# ------------------------------------------------------------------------------------------------ report
java_version="$(java -version 2>&1 | sed -n 1p)"
nginx_version="$("$NGINX_BIN" -v 2>&1 | sed -n 1p)"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/mlperf-resnet50-$stamp.json"

total_secs="$(elapsed "$T_START" "$(now)")"
loadavg="$(cut -d' ' -f1-3 /proc/loadavg)"
export BENCH_LOADER_DIR="$WORK/loader" BENCH_JAVA="$java_version" BENCH_NGINX="$nginx_version" \
  BENCH_DIR="$here" BENCH_GIT="$git_rev${git_dirty:+-dirty}" BENCH_STAMP="$stamp" BENCH_JAR_MTIME="$GRANARY_JAR_MTIME" \
  BENCH_GEN_GRANARY_S="$GEN_GRANARY_S" BENCH_GEN_NGINX_S="$GEN_NGINX_S" BENCH_MEASURE_SECS="$MEASURE_SECS" \
  BENCH_TOTAL_SECS="$total_secs" BENCH_LOGS="$WORK/granary/logs" \
  BENCH_NGINX_ERR="$WORK/nginx/error.log" BENCH_DATASET_BYTES="$DATASET_BYTES" BENCH_GOAL="$GOAL" \
  BENCH_LOADAVG="$loadavg" \
  MAX_ACCELERATORS STEPS SAMPLES_PER_FILE FILES EPOCHS ROUNDS START READ_THREADS SOURCES WARMUP SEED TARGETS \
  GRANARY_ARGS LOADER_JVM_OPTS BUCKET
python3 - >"$result_file" <<'EOF'
import glob, json, os, re, statistics, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
ldir = E["BENCH_LOADER_DIR"]
sources = E["SOURCES"].split()
rounds = int(E["ROUNDS"])

def load(path):
    with open(path) as f:
        d = json.load(f)
    d.get("get", {}).pop("histogram", None)  # compressed HdrHistogram: large and of no use here
    return d

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None

results = {}
warnings = []
for src in sources:
    searches = [load(os.path.join(ldir, "search-%s-r%d.json" % (src, r))) for r in range(1, rounds + 1)]
    accel = [s["accelerators"] for s in searches]
    # the figures of the round whose count is the median's (the lower middle one for an even number of rounds)
    mid = sorted(range(len(searches)), key=lambda i: accel[i])[(len(searches) - 1) // 2]
    rep = searches[mid]
    at_limit = any(s.get("at_limit") for s in searches)
    errors = sum(p.get("errors", 0) for s in searches for p in s.get("probes", []))
    aborted = [p["aborted"] for s in searches for p in s.get("probes", []) if p.get("aborted")]
    if at_limit:
        warnings.append("%s: a search passed at its limit of %s accelerators, more might pass (raise MAX_ACCELERATORS)"
                        % (src, rep.get("search_limit")))
    if errors or aborted:
        warnings.append("%s: %d failed GETs; aborted probes: %s" % (src, errors, aborted[:3]))
    # the reported probe (the best passing count, or the smallest when none passed): bytes it read over its wall
    # time, generation and JVM start excluded (DLIO's throughput figure subtracts 2 steps, so with few steps it
    # reads low)
    probe = [p for p in rep["probes"] if p["accelerators"] == (rep["accelerators"] or rep["probes"][0]["accelerators"])]
    read_rate = round(probe[-1]["bytes"] / probe[-1]["duration_s"] / 2**20, 1) if probe and probe[-1]["duration_s"] else None
    # AU per accelerator count, the mean over every probe of that count: finer than the count found, which on a
    # small machine is often the same for every source
    by_n = {}
    for s in searches:
        for p in s["probes"]:
            by_n.setdefault(p["accelerators"], []).append(p["au"])
    results[src] = {
        "accelerators": med(accel),
        "accelerators_per_round": accel,
        "au": rep["au"],
        "samples_per_sec": rep["samples_per_sec"],
        "throughput_mib_per_sec": rep["throughput_mib_per_sec"],
        "read_mib_per_sec": read_rate,
        "au_by_accelerators": {str(n): round(statistics.mean(v), 4) for n, v in sorted(by_n.items())},
        "at_limit": at_limit,
        "get_errors": errors,
        "probes_per_round": [[{k: p[k] for k in ("accelerators", "au", "pass", "throughput_mib_per_sec")}
                              for p in s["probes"]] for s in searches],
        "searches": searches,
    }

n = results["nginx"]["accelerators"]
summary = {
    "accelerators_granary": results["native"]["accelerators"],
    "accelerators_granary_direct": results["direct"]["accelerators"] if "direct" in results else None,
    "accelerators_nginx": n,
    "ratio": ratio(results["native"]["accelerators"], n),
    "ratio_direct": ratio(results["direct"]["accelerators"], n) if "direct" in results else None,
    "accelerators_granary_s3": results["s3"]["accelerators"] if "s3" in results else None,
    "ratio_s3": ratio(results["s3"]["accelerators"], n) if "s3" in results else None,
    "goal_min_ratio": float(E["BENCH_GOAL"]),
}
summary["meets_goal"] = summary["ratio"] is not None and summary["ratio"] >= summary["goal_min_ratio"]
summary["meets_goal_direct"] = (summary["ratio_direct"] is not None
                                and summary["ratio_direct"] >= summary["goal_min_ratio"]) if "direct" in results else None

warm = {}
for path in sorted(glob.glob(os.path.join(ldir, "warmup-*.json"))):
    d = load(path)
    warm[os.path.basename(path)[len("warmup-"):-len(".json")]] = {
        k: d.get(k) for k in ("accelerators", "au", "pass", "throughput_mib_per_sec")}

log_issues = {}
for path in sorted(glob.glob(os.path.join(E["BENCH_LOGS"], "*.log"))):
    lines = [l.rstrip() for l in open(path, errors="replace") if re.search(r"\b(WARN|ERROR|Exception|SEVERE)\b", l)]
    if lines:
        log_issues[os.path.basename(path)] = {"count": len(lines), "first": lines[:5]}
nginx_err = []
try:
    nginx_err = [l.rstrip() for l in open(E["BENCH_NGINX_ERR"], errors="replace")][:5]
except OSError:
    pass

first = results["native"]["searches"][0]
doc = {
    "benchmark": "mlperf-resnet50",
    "timestamp": E["BENCH_STAMP"],
    "machine": {
        **host_facts(),
        "java": E["BENCH_JAVA"],
        "nginx": E["BENCH_NGINX"],
        "granary_git": E["BENCH_GIT"],
        "granary_jar_built": E["BENCH_JAR_MTIME"],
        "loadavg_at_end": E["BENCH_LOADAVG"],
    },
    "parameters": {
        "workload": "resnet50",
        "files": int(E["FILES"]),
        "samples_per_file": int(E["SAMPLES_PER_FILE"]),
        "record_bytes": first.get("record_bytes"),
        "dataset_bytes": int(E["BENCH_DATASET_BYTES"]),
        "batch": first.get("batch"),
        "compute_time_s": first.get("compute_time_s"),
        "au_threshold": first.get("au_threshold"),
        "read_threads": first.get("read_threads"),
        "steps_per_epoch": int(E["STEPS"]),
        "epochs": int(E["EPOCHS"]),
        "search_start": int(E["START"]),
        "max_accelerators": int(E["MAX_ACCELERATORS"]),
        "rounds": rounds,
        "sources": sources,
        "warmup": E["WARMUP"] == "1",
        "seed": int(E["SEED"]),
        "targets": int(E["TARGETS"]),
        "granary_args": E["GRANARY_ARGS"],
        "loader_jvm_opts": E["LOADER_JVM_OPTS"],
        "bucket": E["BUCKET"],
        "client": "granary load --workload resnet50 --search: one JVM, accelerators and their reader threads as threads",
    },
    "results": results,
    "summary": summary,
    "warmup": warm,
    "times": {
        "generate_granary_s": float(E["BENCH_GEN_GRANARY_S"]),
        "generate_nginx_s": float(E["BENCH_GEN_NGINX_S"]),
        "measure_s": float(E["BENCH_MEASURE_SECS"]),
        "total_s": float(E["BENCH_TOTAL_SECS"]),
    },
    "diagnostics": {
        "warnings": warnings,
        "granary_log_issues": log_issues,
        "nginx_error_log_head": nginx_err,
    },
}
print(json.dumps(doc, indent=2))
EOF
cat "$result_file"
log "results written to $result_file"
python3 - "$result_file" >&2 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for src, r in d["results"].items():
    print("  %-6s accelerators %s (per round %s), AU %.2f%%, read %s MiB/s%s"
          % (src, r["accelerators"], r["accelerators_per_round"], r["au"] * 100, r["read_mib_per_sec"],
             " (at the search limit)" if r["at_limit"] else ""))
s = d["summary"]
print("  Granary (native 307) / nginx: %s; direct / nginx: %s; S3 / nginx: %s; goal >= %.1f: %s"
      % (s["ratio"], s["ratio_direct"], s["ratio_s3"], s["goal_min_ratio"], "met" if s["meets_goal"] else "NOT met"))
for w in d["diagnostics"]["warnings"]:
    print("  WARNING: " + w)
EOF
