#!/usr/bin/env bash
# PUT throughput of one target: `granary load` PUTs objects of each size straight to the target (--direct, native
# API, signed with the cluster secret) with WORKERS connections for SECS seconds, on a fresh 1-target `granary local`.
# Reference, in the same rounds: what a PUT does to the disk without HTTP, the same sizes written by WORKERS Python
# threads (write, fsync, rename, fsync of the directory) into the same file system. With BASELINE_JAR the same runs
# are made with another build too (interleaved), to compare two builds on a machine whose speed drifts.
#
# Prints one JSON document on stdout and writes it to bench/results/put-<timestamp>.json. Progress goes to stderr.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZES="${SIZES:-64KiB 1MiB 16MiB}"  # object sizes, each a run of its own
WORKERS="${WORKERS:-8}"             # concurrent PUTs (loader workers, reference threads)
SECS="${SECS:-15}"                  # seconds per run
ROUNDS="${ROUNDS:-3}"               # rounds; medians reported
BASELINE_JAR="${BASELINE_JAR:-}"    # another build's granary.jar (its lib/ beside it), measured in the same rounds
START_TIMEOUT="${START_TIMEOUT:-120}"
KEEP="${KEEP:-0}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
log() { printf '[put %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[put] ERROR: %s\n' "$*" >&2; exit 1; }

for v in WORKERS SECS ROUNDS START_TIMEOUT KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((WORKERS >= 1 && WORKERS <= 64)) || die "WORKERS must be 1 to 64, got $WORKERS"
((SECS >= 3)) || die "SECS must be at least 3, got $SECS"
((ROUNDS >= 1)) || die "ROUNDS must be at least 1"
for s in $SIZES; do
  [[ "$s" =~ ^[0-9]+(KiB|MiB)$ ]] || die "SIZES takes sizes such as 64KiB or 16MiB, got '$s'"
done
[[ -f "$repo/cli/target/granary.jar" ]] || die "cli/target/granary.jar is missing: build first (./mvnw -o install -DskipTests)"
[[ -z "$BASELINE_JAR" || -f "$BASELINE_JAR" ]] || die "BASELINE_JAR $BASELINE_JAR does not exist"
[[ -z "$BASELINE_JAR" || -d "$(dirname "$BASELINE_JAR")/lib" ]] || die "BASELINE_JAR needs its lib/ directory beside it"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-put.XXXXXX")"
GRANARY_PID=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -z "$GRANARY_PID" ]] || stop_pid "$GRANARY_PID" TERM 60
  end_run "$rc" "$WORK" "$KEEP"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

mkdir -p "$WORK/out" "$WORK/build-current" "$WORK/build-baseline"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/build-current/"
BUILDS=(current)
if [[ -n "$BASELINE_JAR" ]]; then
  cp -r "$BASELINE_JAR" "$(dirname "$BASELINE_JAR")/lib" "$WORK/build-baseline/"
  mv "$WORK/build-baseline/$(basename "$BASELINE_JAR")" "$WORK/build-baseline/granary.jar" 2>/dev/null || true
  BUILDS+=(baseline)
fi
RUNS="$WORK/out/runs.jsonl"
: >"$RUNS"
GRANARY_CLUSTER_SECRET="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export GRANARY_CLUSTER_SECRET
log "work dir $WORK; builds: ${BUILDS[*]}; sizes: $SIZES; $WORKERS workers, ${SECS}s per run, $ROUNDS rounds"

# start_cluster BUILD: a 1-target granary local of BUILD; sets PROXY_URL, GRANARY_PID, TARGET_PID
start_cluster() {
  local build="$1" data="$WORK/$1-data" port i
  rm -rf "$data"
  mkdir -p "$data"
  port="$(free_ports 3)"
  PROXY_URL="http://127.0.0.1:$port"
  # No class-data archive dumped in the background on the cores measured, by builds that would make one.
  local sharing=()
  if java -jar "$WORK/build-$build/granary.jar" local --help 2>&1 | grep -q -- --class-sharing; then
    sharing=(--class-sharing=off)
  fi
  (cd "$WORK" && exec java -jar "$WORK/build-$build/granary.jar" local --targets 1 --port "$port" --data "$data" \
    --log-dir-only "${sharing[@]}") >"$data/local.out" 2>&1 &
  GRANARY_PID=$!
  for ((i = 0; ; i++)); do
    kill -0 "$GRANARY_PID" 2>/dev/null || { cat "$data/local.out" >&2; die "granary local ($build) exited during startup"; }
    grep -q "Granary local cluster is up" "$data/local.out" && break
    ((i < START_TIMEOUT * 5)) || die "granary local ($build) not up within ${START_TIMEOUT}s"
    sleep 0.2
  done
  TARGET_PID="$(pgrep -f "GranaryCommand target .*$data/" | head -n 1)"
  [[ -n "$TARGET_PID" ]] || die "cannot find the target process of $build"
  curl -sf -X POST "$PROXY_URL/v1/buckets/put" >/dev/null || die "creating the bucket failed ($build)"
}

stop_cluster() {
  stop_pid "$GRANARY_PID" TERM 60
  GRANARY_PID=""
  rm -rf "$WORK/$1-data"
}

# granary_run ROUND BUILD SIZE: one loader run against the running cluster; appends a JSON line to RUNS
granary_run() {
  local round="$1" build="$2" size="$3" out="$WORK/out/$1-$2-$3.json" c0 c1
  c0="$(cpu_ticks "$TARGET_PID")"
  java -jar "$WORK/build-current/granary.jar" load --endpoint "$PROXY_URL" --bucket put --direct --pct-put 100 \
    --duration "${SECS}s" --min-size "$size" --max-size "$size" --workers "$WORKERS" --interval 0 \
    --json "$out" >"$out.txt" 2>&1 || { cat "$out.txt" >&2; die "granary load failed"; }
  c1="$(cpu_ticks "$TARGET_PID")"
  python3 - "$out" "$round" "$build" "$size" "$((c1 - c0))" "$(getconf CLK_TCK)" >>"$RUNS" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["put"]
print(json.dumps({"round": int(sys.argv[2]), "build": sys.argv[3], "size": sys.argv[4], "count": p["count"],
                  "errors": p["errors"], "bytes": p["bytes"], "bytes_per_sec": p["throughput_bytes_per_sec"],
                  "latency_us": p.get("latency_us"),
                  "target_cpu_s": int(sys.argv[5]) / int(sys.argv[6])}))
EOF
}

# reference_run ROUND SIZE: the same writes without HTTP (write, fsync, rename, directory fsync) in WORKERS threads
reference_run() {
  local dir="$WORK/ref"
  rm -rf "$dir"
  mkdir -p "$dir"
  python3 - "$dir" "$1" "$2" "$WORKERS" "$SECS" >>"$RUNS" <<'EOF'
import json, os, sys, threading, time
d, rnd, size_s, workers, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
size = int(size_s[:-3]) * (1024 if size_s.endswith("KiB") else 1 << 20)
chunk = os.urandom(min(size, 256 << 10))
done = [0] * workers
end = time.monotonic() + secs
def work(w):
    dfd = os.open(d, os.O_RDONLY)
    i = 0
    while time.monotonic() < end:
        tmp, final = "%s/.w%d-%d" % (d, w, i), "%s/o%d-%d" % (d, w, i)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        left = size
        while left > 0:
            left -= os.write(fd, chunk[:min(left, len(chunk))])
        os.fsync(fd)
        os.close(fd)
        os.rename(tmp, final)
        os.fsync(dfd)
        done[w] += 1
        i += 1
    os.close(dfd)
t0 = time.monotonic()
ts = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
[t.start() for t in ts]
[t.join() for t in ts]
el = time.monotonic() - t0
print(json.dumps({"round": rnd, "build": "reference", "size": size_s, "count": sum(done), "errors": 0,
                  "bytes_per_sec": sum(done) * size / el}))
EOF
  rm -rf "$dir"
}

T0="$(date +%s)"
for ((round = 1; round <= ROUNDS; round++)); do
  for build in "${BUILDS[@]}"; do
    start_cluster "$build"
    for size in $SIZES; do
      log "round $round/$ROUNDS: $build, $size"
      granary_run "$round" "$build" "$size"
    done
    stop_cluster "$build"
  done
  for size in $SIZES; do
    log "round $round/$ROUNDS: reference, $size"
    reference_run "$round" "$size"
  done
done

mkdir -p "$here/results"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
python3 - "$RUNS" "$stamp" "$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" "$(($(date +%s) - T0))" "$WORKERS" "$SECS" "$ROUNDS" "$BASELINE_JAR" \
  "$(nproc)" <<'EOF' | tee "$here/results/put-$stamp.json"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(xs):
    return round(statistics.median(xs), 1) if xs else None
by = {}
for r in runs:
    by.setdefault((r["size"], r["build"]), []).append(r)
sizes = []
for r in runs:
    if r["size"] not in sizes:
        sizes.append(r["size"])
out = {}
for s in sizes:
    row = {}
    for b in ("current", "baseline", "reference"):
        rs = by.get((s, b))
        if not rs:
            continue
        row[b] = {"mib_per_sec": med([x["bytes_per_sec"] / 2**20 for x in rs]),
                  "mib_per_sec_each_round": [round(x["bytes_per_sec"] / 2**20, 1) for x in rs],
                  "errors": sum(x["errors"] for x in rs)}
        if b != "reference":
            row[b]["target_cpu_s_per_gib"] = med([x["target_cpu_s"] * 2**30 / max(1, x["bytes"]) for x in rs])
            row[b]["latency_p99_us"] = med([x["latency_us"]["p99"] for x in rs if x.get("latency_us")])
    ref = row.get("reference", {}).get("mib_per_sec")
    for b in ("current", "baseline"):
        if b in row and ref:
            row[b]["ratio_to_reference"] = round(row[b]["mib_per_sec"] / ref, 3)
    if "baseline" in row and row["baseline"]["mib_per_sec"]:
        row["ratio_current_to_baseline"] = round(row["current"]["mib_per_sec"] / row["baseline"]["mib_per_sec"], 3)
    out[s] = row
print(json.dumps({"benchmark": "put", "timestamp": sys.argv[2], "granary_git": sys.argv[3], "nproc": int(sys.argv[10]),
                  "loadavg_end": sys.argv[4], "seconds": int(sys.argv[5]),
                  "parameters": {"workers": int(sys.argv[6]), "secs": int(sys.argv[7]), "rounds": int(sys.argv[8]),
                                 "baseline_jar": sys.argv[9] or None},
                  "method": "1-target granary local; granary load --direct PUTs (native) of each size for SECS s with "
                            "WORKERS workers; reference: WORKERS Python threads writing the same sizes to the same "
                            "file system (write, fsync, rename, directory fsync); medians of ROUNDS interleaved rounds",
                  "sizes": out}, indent=2))
EOF
