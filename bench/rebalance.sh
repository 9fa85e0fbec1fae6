#!/usr/bin/env bash
# Rebalance benchmark. Two parts:
#   throughput: a 1-target cluster holding a data set (1 MiB objects, then separately 64 KiB objects) is joined by
#     a second target with the bandwidth cap off; the rebalance moves about half of the objects from t1 to t2.
#     Per sending target: MiB/s and objects/s, from the map change to the job's success. Reference: the same files
#     copied between directories of the same file system with cp and rsync (then sync), page cache dropped first.
#   p99: a 2-target cluster with a data set and a foreground reader GETting a hot set through the proxy (307 to the
#     owner) at a fixed rate; p50/p99 while idle, then while a third target joins and the rebalance runs under the
#     default bandwidth cap; P99_ROUNDS rounds (a fresh cluster each), the median round reported.
#
# Prints one JSON document on stdout and writes it to bench/results/rebalance-<timestamp>.json.
# Progress goes to stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
PARTS="${PARTS:-throughput p99}"          # which parts run (always in this order)
COUNT_1M="${COUNT_1M:-8192}"              # throughput part: 1 MiB objects on t1 (about half move: 4 GiB; 0 skips the size)
COUNT_64K="${COUNT_64K:-16384}"           # throughput part: 64 KiB objects on t1 (1 GiB, about half move; 0 skips the size)
ROUNDS="${ROUNDS:-1}"                     # throughput part: rounds per size (a fresh cluster each); medians reported
REFERENCES="${REFERENCES:-cp rsync rsync_fsync}" # reference copies after each rebalance (cp is required)
STREAMS="${STREAMS:-}"                    # --rebalance-streams of every target (empty: Granary's default, 16)
DROP_CACHES="${DROP_CACHES:-1}"           # 1: sync and drop the page cache before each timed rebalance and copy
P99_COUNT="${P99_COUNT:-auto}"            # p99 part: 1 MiB objects on t1 and t2 (a third move to t3); auto: below
P99_BANDWIDTH="${P99_BANDWIDTH:-}"        # p99 part: --rebalance-bandwidth of every target (empty: the default)
P99_ROUNDS="${P99_ROUNDS:-3}"            # p99 part: rounds, each a fresh cluster; the goal takes the median round
HOT_COUNT="${HOT_COUNT:-64}"              # p99 part: objects of the data set the foreground reader GETs
READ_RATE="${READ_RATE:-50}"              # p99 part: foreground GETs per second (open loop, fixed schedule)
READ_THREADS="${READ_THREADS:-32}"        # p99 part: reader threads (requests in flight at most)
WARMUP_SECS="${WARMUP_SECS:-10}"          # p99 part: reader warm-up before the idle window (not measured)
IDLE_SECS="${IDLE_SECS:-30}"              # p99 part: the idle window
MIN_DURING_SECS="${MIN_DURING_SECS:-15}"  # p99 part: a shorter rebalance is flagged (raise P99_COUNT)
PUT_WORKERS="${PUT_WORKERS:-4}"           # parallel PUTs while loading the data sets (granary load)
REBALANCE_TIMEOUT="${REBALANCE_TIMEOUT:-1800}" # seconds a rebalance may take before the run fails
TARGET_ARGS="${TARGET_ARGS:-}"            # extra flags for every target, the joining one included
JVM_OPTS="${JVM_OPTS:-}"                  # extra JVM options for every node, e.g. "-Xmx1g"
JOIN_JVM_OPTS="${JOIN_JVM_OPTS:-}"        # extra JVM options for the joining target only, e.g. a flight recording
START_TIMEOUT="${START_TIMEOUT:-180}"     # seconds to wait for the local cluster and a joining target
BUILD="${BUILD:-auto}"                    # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                         # 1: keep the work dir (cluster data, node logs, reader records)
BUCKET="${BUCKET:-rebalance}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[rebalance %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[rebalance] ERROR: %s\n' "$*" >&2; exit 1; }

for v in COUNT_1M COUNT_64K ROUNDS P99_ROUNDS DROP_CACHES HOT_COUNT READ_RATE READ_THREADS WARMUP_SECS IDLE_SECS \
  MIN_DURING_SECS PUT_WORKERS REBALANCE_TIMEOUT START_TIMEOUT KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
for p in $PARTS; do
  [[ " throughput p99 " == *" $p "* ]] || die "unknown part '$p' in PARTS (throughput p99)"
done
[[ -n "${PARTS// /}" ]] || die "PARTS is empty"
has_part() { [[ " $PARTS " == *" $1 "* ]]; }
for r in $REFERENCES; do
  [[ " cp rsync rsync_fsync " == *" $r "* ]] || die "unknown reference '$r' in REFERENCES (cp rsync rsync_fsync)"
done
[[ " $REFERENCES " == *" cp "* ]] || die "REFERENCES must include cp, the reference of the goal (got '$REFERENCES')"
((DROP_CACHES <= 1)) || die "DROP_CACHES must be 0 or 1, got '$DROP_CACHES'"
((KEEP <= 1)) || die "KEEP must be 0 or 1, got '$KEEP'"
((ROUNDS >= 1)) || die "ROUNDS must be at least 1"
((P99_ROUNDS >= 1)) || die "P99_ROUNDS must be at least 1"
if has_part throughput; then
  ((COUNT_1M + COUNT_64K > 0)) || die "COUNT_1M and COUNT_64K are both 0: the throughput part has nothing to move"
  ((COUNT_1M == 0 || COUNT_1M >= 16)) || die "COUNT_1M must be 0 or at least 16, got $COUNT_1M"
  ((COUNT_64K == 0 || COUNT_64K >= 16)) || die "COUNT_64K must be 0 or at least 16, got $COUNT_64K"
fi
[[ "$P99_COUNT" == auto ]] || is_uint "$P99_COUNT" || die "P99_COUNT must be auto or a non-negative integer, got '$P99_COUNT'"
if has_part p99; then
  [[ "$P99_COUNT" == auto ]] || ((P99_COUNT >= 16)) || die "P99_COUNT must be at least 16, got $P99_COUNT"
  ((HOT_COUNT >= 1 && HOT_COUNT <= 2048)) || die "HOT_COUNT must be between 1 and 2048, got $HOT_COUNT"
  [[ "$P99_COUNT" == auto ]] || ((HOT_COUNT <= P99_COUNT)) || die "HOT_COUNT ($HOT_COUNT) must not exceed P99_COUNT ($P99_COUNT)"
  ((READ_RATE >= 1 && READ_RATE <= 1000)) || die "READ_RATE must be between 1 and 1000 GETs per second, got $READ_RATE"
  ((READ_THREADS >= 1 && READ_THREADS <= 64)) || die "READ_THREADS must be between 1 and 64, got $READ_THREADS"
  ((IDLE_SECS >= 5)) || die "IDLE_SECS must be at least 5, got $IDLE_SECS"
fi
((PUT_WORKERS >= 1 && PUT_WORKERS <= 64)) || die "PUT_WORKERS must be between 1 and 64, got $PUT_WORKERS"
((REBALANCE_TIMEOUT >= 10)) || die "REBALANCE_TIMEOUT must be at least 10, got $REBALANCE_TIMEOUT"
if [[ -n "$STREAMS" ]]; then
  is_uint "$STREAMS" && ((STREAMS >= 1 && STREAMS <= 64)) || die "STREAMS must be empty or 1 to 64, got '$STREAMS'"
fi
[[ -z "$P99_BANDWIDTH" || "$P99_BANDWIDTH" =~ ^[0-9]+(B|K|KiB|KB|M|MiB|MB|G|GiB|GB)?$ ]] \
  || die "P99_BANDWIDTH must be empty or a size such as 256MiB, 64MB or 0, got '$P99_BANDWIDTH'"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"
[[ "$BUCKET" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] || die "BUCKET '$BUCKET' is not a valid bucket name (3-63 of a-z 0-9 . -)"
for a in $TARGET_ARGS; do
  [[ "$a" == --* ]] || die "TARGET_ARGS must be flags of the form --name=value, got '$a'"
  case "$a" in
    --id=* | --port=* | --host=* | --mountpath=* | --primary=* | --id | --port | --host | --mountpath | --primary)
      die "TARGET_ARGS must not set $a: the script sets it" ;;
  esac
done

# ------------------------------------------------------------------------------------------------ cleanup
WORK=""
GRANARY_PID=""
JOIN_PID=""
READER_PID=""
PAUSE_PID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -z "$PAUSE_PID" ]] || kill "$PAUSE_PID" 2>/dev/null
  if [[ -n "$READER_PID" ]] && kill -0 "$READER_PID" 2>/dev/null; then
    stop_pid "$READER_PID" TERM 15
  fi
  if [[ -n "$JOIN_PID" ]] && kill -0 "$JOIN_PID" 2>/dev/null; then
    log "stopping the joining target (pid $JOIN_PID)"
    stop_pid "$JOIN_PID" TERM 30
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
command -v curl >/dev/null || need+=(curl)
command -v python3 >/dev/null || need+=(python3)
command -v pgrep >/dev/null || need+=(procps)
command -v java >/dev/null || need+=(openjdk-17-jre-headless)
[[ " $REFERENCES " != *" rsync"* ]] || command -v rsync >/dev/null || need+=(rsync)
((${#need[@]} == 0)) || log "missing tools: ${need[*]} (installing; rsync is the second reference copy)"
install_missing "${need[@]}"
for t in curl python3 java cp find sync pgrep findmnt; do
  command -v "$t" >/dev/null || die "required tool '$t' is missing"
done
if [[ " $REFERENCES " == *" rsync_fsync "* ]]; then
  [[ "$(rsync --help 2>&1 || true)" == *--fsync* ]] || die "this rsync has no --fsync (needs rsync 3.2.4 or later); drop rsync_fsync from REFERENCES"
fi

now() { echo "$EPOCHREALTIME"; }
# pause SECONDS: sleep, but a signal's trap runs at once (bash runs traps only between foreground commands)
pause() {
  sleep "$1" &
  PAUSE_PID=$!
  wait "$PAUSE_PID"
  PAUSE_PID=""
}
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 6))" "$1" "$2"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# ------------------------------------------------------------------------------------------------ work dir
T_START="$(now)"
LOADAVG_START="$(loadavg)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-rebalance.XXXXXX")"
chmod 755 "$WORK"
mkdir -p "$WORK/out" "$WORK/ref"
RUNS="$WORK/out/runs.jsonl"
: >"$RUNS"
log "work dir $WORK (load average $LOADAVG_START)"

# The block device under the work dir, for its I/O counters (/proc/diskstats): writes, flushes (what fsync costs
# on this disk), reads. Empty when the work dir is not on a block device (tmpfs, overlay).
FS_SOURCE="$(findmnt -n -o SOURCE --target "$WORK" 2>/dev/null | head -n 1 || true)"
FS_TYPE="$(findmnt -n -o FSTYPE --target "$WORK" 2>/dev/null | head -n 1 || true)"
DISK_DEV="$(basename "${FS_SOURCE%%\[*}")"
awk -v d="$DISK_DEV" '$3 == d {f = 1} END {exit !f}' /proc/diskstats 2>/dev/null || DISK_DEV=""
[[ -n "$DISK_DEV" ]] || log "WARNING: the work dir's file system ($FS_SOURCE, $FS_TYPE) is no block device in /proc/diskstats: no disk counters"

# snap: one JSON object of the machine's counters now: time, /proc/stat cpu jiffies, the disk's counters
# (reads, sectors read, writes, sectors written, io ms, flushes, flush ms) and the load average.
snap() {
  local cpu disk
  cpu="$(awk '$1 == "cpu" {for (i = 2; i <= NF; i++) printf "%s%s", $i, (i < NF ? "," : "")}' /proc/stat)"
  disk=""
  [[ -z "$DISK_DEV" ]] || disk="$(awk -v d="$DISK_DEV" '$3 == d {print $4 "," $6 "," $8 "," $10 "," $13 "," $19 "," $20}' /proc/diskstats)"
  # Stall time (microseconds, "some" task waiting) for memory and I/O, and direct-reclaim counters: a GET stall
  # the machine caused (page-cache reclaim, another tenant's writeback) shows here, not only in Granary's figures.
  local psi_mem psi_io reclaim
  psi_mem="$(awk '/^some/ {sub("total=", "", $5); print $5}' /proc/pressure/memory 2>/dev/null || true)"
  psi_io="$(awk '/^some/ {sub("total=", "", $5); print $5}' /proc/pressure/io 2>/dev/null || true)"
  reclaim="$(awk '$1 == "allocstall_normal" || $1 == "allocstall_movable" || $1 == "pgscan_direct" {s += $2} END {print s + 0}' /proc/vmstat)"
  printf '{"t":%s,"cpu":[%s],"disk":[%s],"loadavg":"%s","psi_mem_us":%s,"psi_io_us":%s,"direct_reclaim":%s}' "$(now)" "$cpu" \
    "$disk" "$(loadavg)" "${psi_mem:-null}" "${psi_io:-null}" "$reclaim"
}

# ------------------------------------------------------------------------------------------------ page cache
# Dropping the page cache makes the rebalance and each reference copy read their source from the disk alike.
# Needs root (or password-less sudo); otherwise everything runs warm and the JSON says so.
CACHE_DROPPED=0
CACHE_NOTE="DROP_CACHES=0: page cache left warm"
if ((DROP_CACHES)); then
  sync
  if ((EUID == 0)) && (echo 1 >/proc/sys/vm/drop_caches) 2>/dev/null; then
    CACHE_DROPPED=1 CACHE_NOTE="sync; echo 3 > /proc/sys/vm/drop_caches before each timed rebalance and copy"
  elif ((EUID != 0)) && sudo -n sh -c 'echo 1 > /proc/sys/vm/drop_caches' 2>/dev/null; then
    CACHE_DROPPED=1 CACHE_NOTE="sync; sudo sh -c 'echo 3 > /proc/sys/vm/drop_caches' before each timed rebalance and copy"
  else
    CACHE_NOTE="dropping the page cache is not permitted here (not root, no password-less sudo): everything ran warm"
    log "WARNING: $CACHE_NOTE"
  fi
fi
drop_caches() {
  sync
  ((CACHE_DROPPED)) || return 0
  if ((EUID == 0)); then
    echo 3 >/proc/sys/vm/drop_caches
  else
    sudo -n sh -c 'echo 3 > /proc/sys/vm/drop_caches'
  fi
}

# ------------------------------------------------------------------------------------------------ granary
# Build if needed, then run a private copy of the distribution: another developer may rebuild cli/target while
# this runs (a jar rewritten under a running JVM breaks it), and the copy's path marks this run's processes.
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
GRANARY_JAR_MTIME="$(date -u -r "$repo/cli/target/granary.jar" +%Y-%m-%dT%H:%M:%SZ)"
# The nodes trust each other through the cluster secret; the joining target gets it from the environment too.
GRANARY_CLUSTER_SECRET="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export GRANARY_CLUSTER_SECRET
# node_jvm_options: the JVM options granary local gave this cluster's t1 (LocalCluster.Options.NODE_JVM_OPTIONS and
# JVM_OPTS), one per line, read from its command line: a joining target runs as the cluster's own nodes do.
node_jvm_options() {
  local pid
  pid="$(target_pid t1)"
  [[ -n "$pid" ]] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" | awk 'NR == 1 {next} $0 == "-cp" || $0 == "-jar" {exit} {print}'
}
granary() { java ${GRANARY_JAVA_OPTS:-} -jar "$WORK/dist/granary.jar" "$@"; }

# start_cluster NAME TARGETS [TARGET_FLAG...]: `granary local` with TARGETS targets, data under $WORK/NAME, every
# target given TARGET_ARGS and the flags; sets DATA, GRANARY_PORT, PROXY_URL, GRANARY_PID; waits until the map
# lists every target active.
start_cluster() {
  local name="$1" n="$2" i active
  shift 2
  DATA="$WORK/$name"
  mkdir -p "$DATA"
  GRANARY_PORT="$(free_ports $((n + 2)))" # the proxy, the targets, and the one that joins later
  PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
  # --class-sharing=off: no class-data archive dumped in the background, on the cores measured
  local args=(local --targets "$n" --port "$GRANARY_PORT" --data "$DATA" --log-dir-only --class-sharing=off)
  for a in $JVM_OPTS; do args+=("--jvm-opt=$a"); done
  for a in $TARGET_ARGS "$@"; do args+=("--target-arg=$a"); done
  (cd "$WORK" && exec java ${GRANARY_JAVA_OPTS:-} -jar "$WORK/dist/granary.jar" "${args[@]}") >"$DATA/local.out" 2>&1 &
  GRANARY_PID=$!
  log "$name: starting granary local (pid $GRANARY_PID): proxy $PROXY_URL, $n target(s)${*:+, target flags $*}"
  for ((i = 0; ; i++)); do
    if ! kill -0 "$GRANARY_PID" 2>/dev/null; then
      cat "$DATA/local.out" >&2
      tail -n 30 "$DATA"/logs/*.log >&2 2>/dev/null || true
      die "granary local exited during startup"
    fi
    grep -q "Granary local cluster is up" "$DATA/local.out" && break
    ((i < START_TIMEOUT * 5)) || die "Granary local cluster not up within ${START_TIMEOUT}s (see $DATA/local.out)"
    sleep 0.2
  done
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$PROXY_URL/v1/health")" == 200 ]] || die "proxy /v1/health is not 200"
  active="$(curl -sf "$PROXY_URL/v1/cluster/map" | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(sum(1 for t in m.get("targets", {}).values() if t.get("state") == "active"))')" \
    || die "cannot read $PROXY_URL/v1/cluster/map"
  ((active == n)) || die "cluster map lists $active active targets, expected $n"
}

# target_pid ID: the pid of this cluster's target ID (its command line names its mountpaths under DATA)
target_pid() { pgrep -f "GranaryCommand target --id $1 .*$DATA/" | head -n 1 || true; }

# join_target ID [TARGET_FLAG...]: starts one more target as a node of its own (as an operator adds one), its
# mountpaths under DATA like the others', on a free port taken now (a port kept free since the cluster started may
# have become some connection's ephemeral port meanwhile); sets JOIN_PID and JOIN_LAUNCH once it listens. A port
# lost to a race (bind fails) is replaced, up to 3 times.
join_target() {
  local id="$1" port attempt i log="$DATA/logs/$1.log" jvm
  shift
  mapfile -t jvm < <(node_jvm_options) && ((${#jvm[@]})) || die "cannot read the JVM options of this cluster's t1"
  # shellcheck disable=SC2206 # JOIN_JVM_OPTS is a list of words on purpose
  jvm+=($JOIN_JVM_OPTS)
  mkdir -p "$DATA/$id/mp1" "$DATA/$id/mp2" "$DATA/logs"
  for ((attempt = 1; ; attempt++)); do
    port="$(free_ports 1)"
    : >"$log"
    JOIN_LAUNCH="$(now)"
    # shellcheck disable=SC2086 # TARGET_ARGS is a list of flags on purpose
    java "${jvm[@]}" -jar "$WORK/dist/granary.jar" target --id "$id" --host 127.0.0.1 --port "$port" \
      --mountpath "$DATA/$id/mp1" --mountpath "$DATA/$id/mp2" --primary "$PROXY_URL" $TARGET_ARGS "$@" \
      --exit-with-parent "$$" >>"$log" 2>&1 &
    JOIN_PID=$!
    log "target $id joins (pid $JOIN_PID, port $port${*:+, flags $*})"
    for ((i = 0; ; i++)); do
      grep -q "target serving" "$log" && return 0
      kill -0 "$JOIN_PID" 2>/dev/null || break
      ((i < START_TIMEOUT * 10)) || die "target $id did not start listening within ${START_TIMEOUT}s (see $log)"
      sleep 0.1
    done
    wait "$JOIN_PID" 2>/dev/null || true
    JOIN_PID=""
    if grep -q "Address already in use" "$log" && ((attempt < 3)); then
      log "port $port was taken meanwhile; another one"
      continue
    fi
    tail -n 30 "$log" >&2
    die "target $id exited at startup"
  done
}

stop_cluster() {
  if [[ -n "$JOIN_PID" ]]; then
    stop_pid "$JOIN_PID" TERM 30
    JOIN_PID=""
  fi
  if [[ -n "$GRANARY_PID" ]]; then
    stop_pid "$GRANARY_PID" TERM 60
    GRANARY_PID=""
  fi
  # the objects go (a few GiB), the logs stay for the diagnostics
  ((KEEP)) || rm -rf "$DATA"/t* "$DATA/proxy"
}

# map_rebalance: "ID STATE" of the map's rebalance record ("0 none" without one). Parsed in bash: wait_rb_start
# polls this every 50 ms while the joining target starts, and a python3 per poll took a third of a core from the
# nodes measured then (per-thread schedstat: the joining target's request threads waited on the run queue).
map_rebalance() {
  local map re='"rebalance":\{"id":([0-9]+),"state":"([a-z_]+)"'
  map="$(curl -sf --max-time 10 "$PROXY_URL/v1/cluster/map")" || return 1
  if [[ "$map" =~ $re ]]; then
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
  elif [[ "$map" == *'"rebalance":{'* ]]; then
    return 1 # a record this parser does not understand: fail loudly rather than wait for nothing
  else
    echo "0 none"
  fi
}

# wait_settled: until no rebalance runs (the ones the cluster's own start began)
wait_settled() {
  local i id state
  for ((i = 0; ; i++)); do
    read -r id state < <(map_rebalance) || die "cannot read the cluster map"
    [[ "$state" != running ]] && return 0
    ((i < REBALANCE_TIMEOUT * 5)) || die "rebalance rb-$id still running after ${REBALANCE_TIMEOUT}s"
    sleep 0.2
  done
}

# wait_rb_start PREV_ID: waits for the rebalance after PREV_ID (the join's) to start; sets RB_ID and RB_SEEN (when
# the script saw the map change, polling every 50 ms).
wait_rb_start() {
  local prev="$1" i id state
  for ((i = 0; ; i++)); do
    kill -0 "$JOIN_PID" 2>/dev/null || { tail -n 30 "$DATA"/logs/t*.log >&2; die "the joining target exited"; }
    read -r id state < <(map_rebalance) || die "cannot read the cluster map"
    ((id > prev)) && break
    ((i < START_TIMEOUT * 20)) || die "no rebalance started within ${START_TIMEOUT}s of the join (map still at rb-$id)"
    sleep 0.05
  done
  RB_ID="$id"
  RB_SEEN="$(now)"
  log "rebalance rb-$RB_ID started ($(elapsed "$JOIN_LAUNCH" "$RB_SEEN")s after the launch of the joining target)"
}

# wait_rb_end OUT: waits for rebalance RB_ID to end and writes its final job status to OUT; dies unless it succeeded
wait_rb_end() {
  local out="$1" state t0
  t0="$(now)"
  while :; do
    curl -sf --max-time 90 -o "$out" "$PROXY_URL/v1/jobs/rb-$RB_ID?wait=60s" || die "GET /v1/jobs/rb-$RB_ID failed"
    state="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["state"])' "$out")"
    [[ "$state" == running ]] || break
    python3 - "$out" >&2 <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
o, b = j["objects"], j["bytes"]
print("    rb: %d of %d objects, %.0f of %.0f MiB moved, %.1f MiB/s" % (o["moved"], o["to_move"], b["moved"] / 2**20,
      b["to_move"] / 2**20, j.get("bytes_per_second", 0) / 2**20))
EOF
    (($(python3 -c "import time, sys; print(int(time.time() - float(sys.argv[1])))" "$t0") < REBALANCE_TIMEOUT)) \
      || die "rebalance rb-$RB_ID did not finish within ${REBALANCE_TIMEOUT}s"
    kill -0 "$JOIN_PID" 2>/dev/null || die "the joining target exited during the rebalance"
  done
  [[ "$state" == succeeded ]] || { cat "$out" >&2; die "rebalance rb-$RB_ID ended $state"; }
}

create_bucket() {
  local code
  code="$(curl -s -o "$WORK/out/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/$BUCKET")"
  [[ "$code" =~ ^2 ]] || { cat "$WORK/out/bucket.out" >&2; die "creating bucket $BUCKET answered HTTP $code"; }
}

# load_objects COUNT SIZE OUT_JSON: COUNT objects of SIZE (1MiB, 64KiB) PUT through the proxy by granary load
load_objects() {
  local count="$1" size="$2" out="$3" t0
  t0="$(now)"
  granary load --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put 100 --max-puts "$count" --duration 0 \
    --min-size "$size" --max-size "$size" --workers "$PUT_WORKERS" --interval 0 --seed 1 --json "$out" \
    >"$out.txt" 2>&1 || { cat "$out.txt" >&2; die "granary load (PUT $count x $size) failed"; }
  python3 - "$out" "$count" <<'EOF' || die "granary load did not PUT every object (see $out.txt)"
import json, sys
p = json.load(open(sys.argv[1]))["put"]
if p["count"] != int(sys.argv[2]) or p["errors"]:
    sys.exit("PUT %d of %s objects, %d errors" % (p["count"], sys.argv[2], p["errors"]))
EOF
  log "PUT $count x $size in $(elapsed "$t0" "$(now)")s"
}

# tree_stats DIR...: "FILES BYTES FIRST_MTIME LAST_MTIME" of the regular files under the directories (mtimes in
# epoch seconds, 0 without files). A moved object's file is written by its receiver as it arrives, so the mtimes on
# the receiving target tell when the first and the last object landed.
tree_stats() {
  find "$@" -type f -printf '%s %T@\n' 2>/dev/null \
    | awk 'BEGIN {lo = 0; hi = 0} {n++; s += $1; if (lo == 0 || $2 < lo) lo = $2; if ($2 > hi) hi = $2}
           END {printf "%d %.0f %.6f %.6f\n", n, s, lo, hi}'
}

CLK_TCK="$(getconf CLK_TCK)"

# jcompact FILE [KEY]: the JSON document (or its KEY) on one line, without loader histograms
jcompact() {
  python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if len(sys.argv) > 2:
    d = d[sys.argv[2]]
if isinstance(d, dict):
    d.pop("histogram", None)
print(json.dumps(d, separators=(",", ":")))
EOF
}

# show_job FILE: what a finished job moved, and per sending target how fast (over the job's window)
show_job() {
  python3 - "$1" >&2 <<'EOF'
import json, re, sys
from datetime import datetime
def ts(s):
    m = re.match(r"(.*?T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$", s)
    frac = m.group(2) or "0"
    return datetime.fromisoformat(m.group(1) + "+00:00").timestamp() + int(frac) / 10 ** len(frac)
j = json.load(open(sys.argv[1]))
secs = ts(j["finished"]) - ts(j["started"])
print("    %s %s in %.2fs: %d objects, %.1f MiB moved" % (j["id"], j["state"], secs, j["objects"]["moved"],
      j["bytes"]["moved"] / 2**20))
for tid, p in sorted(j["targets"].items()):
    if p["sent"]:
        print("    %s sent %d objects, %.1f MiB: %.1f MiB/s, %.0f objects/s (cap %s)" % (tid, p["sent"],
              p["bytes_sent"] / 2**20, p["bytes_sent"] / 2**20 / secs, p["sent"] / secs,
              "%.0f MiB/s" % (p["bandwidth_cap"] / 2**20) if p["bandwidth_cap"] else "off"))
EOF
}

# ------------------------------------------------------------------------------------------------ references
# children_secs: user + system CPU seconds of this shell's reaped children (bash `times`, second line), written to
# a file so that `times` runs in the calling shell.
children_secs() {
  times >"$WORK/times.out"
  python3 - "$(sed -n 2p "$WORK/times.out")" <<'EOF'
import re, sys
print(round(sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", sys.argv[1])), 3))
EOF
}

# ref_copy TOOL SRC_ROOT: copies SRC_ROOT/mp1/objects and SRC_ROOT/mp2/objects (the files the rebalance moved, on
# the target that received them) into a new directory of the same file system with TOOL, page cache dropped
# first; times the copy and the sync after it; prints one JSON object.
ref_copy() {
  local tool="$1" src="$2" dst="$WORK/ref/$1" s0 s1 s2 t0 t1 t2 mp files bytes
  rm -rf "$dst"
  mkdir -p "$dst"
  drop_caches
  children_secs >"$WORK/cpu0.out"
  s0="$(snap)"
  t0="$(now)"
  for mp in mp1 mp2; do
    [[ -d "$src/$mp/objects" ]] || continue
    case "$tool" in
      cp) cp -r "$src/$mp/objects" "$dst/$mp" ;;
      rsync) rsync -a "$src/$mp/objects/" "$dst/$mp/" ;;
      rsync_fsync) rsync -a --fsync "$src/$mp/objects/" "$dst/$mp/" ;;
    esac
  done
  t1="$(now)"
  s1="$(snap)"
  children_secs >"$WORK/cpu1.out"
  sync
  t2="$(now)"
  s2="$(snap)"
  read -r files bytes _ _ < <(tree_stats "$dst")
  printf '{"tool":"%s","copy_s":%s,"sync_s":%s,"cpu_s":%s,"files":%d,"bytes":%d,"snap0":%s,"snap1":%s,"snap2":%s}' \
    "$tool" "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")" "$(elapsed "$(<"$WORK/cpu0.out")" "$(<"$WORK/cpu1.out")")" \
    "$files" "$bytes" "$s0" "$s1" "$s2"
  rm -rf "$dst"
  sync
}

# ------------------------------------------------------------------------------------------------ throughput part
# tp_round LABEL SIZE COUNT ROUND
tp_round() {
  local label="$1" size="$2" count="$3" round="$4" name prev state s0 s1 c1 c2 p1 p2 t1pid files bytes refs r
  local first_landed last_landed
  name="tp-$label-r$round"
  log "throughput $label, round $round/$ROUNDS: $count x $size on t1, then t2 joins (cap off)"
  # t1 sends uncapped; the joining t2 gets the same flags (it sends nothing)
  local flags=(--rebalance-bandwidth=0)
  [[ -z "$STREAMS" ]] || flags+=("--rebalance-streams=$STREAMS")
  start_cluster "$name" 1 "${flags[@]}"
  create_bucket
  load_objects "$count" "$size" "$WORK/out/$name-put.json"
  wait_settled
  read -r prev state < <(map_rebalance) || die "cannot read the cluster map"
  t1pid="$(target_pid t1)"
  [[ -n "$t1pid" ]] || die "target t1's process not found"
  drop_caches
  join_target t2 "${flags[@]}"
  wait_rb_start "$prev"
  # counters from the map change on (the joining JVM's start is not part of the rebalance)
  s0="$(snap)"
  c1="$(cpu_ticks "$t1pid")"
  c2="$(cpu_ticks "$JOIN_PID")"
  wait_rb_end "$WORK/out/$name-job.json"
  s1="$(snap)"
  p1="$(($(cpu_ticks "$t1pid") - c1))"
  p2="$(($(cpu_ticks "$JOIN_PID") - c2))"
  read -r files bytes first_landed last_landed < <(tree_stats "$DATA"/t2/mp*/objects)
  show_job "$WORK/out/$name-job.json"
  log "  t2 holds $files files, $((bytes >> 20)) MiB"
  refs=""
  for r in $REFERENCES; do
    log "  reference: $r of the $files moved files"
    refs+="\"$r\":$(ref_copy "$r" "$DATA/t2"),"
  done
  printf '{"type":"throughput","size":"%s","round":%d,"objects":%d,"rb_id":%d,"join_launch":%s,"rb_seen":%s,"job":%s,"put":%s,"snap0":%s,"snap1":%s,"cpu_ticks":{"t1":%d,"t2":%d},"moved_files":%d,"moved_bytes":%d,"landed":[%s,%s],"refs":{%s}}\n' \
    "$label" "$round" "$count" "$RB_ID" "$JOIN_LAUNCH" "$RB_SEEN" "$(jcompact "$WORK/out/$name-job.json")" "$(jcompact "$WORK/out/$name-put.json" put)" \
    "$s0" "$s1" "$p1" "$p2" "$files" "$bytes" "$first_landed" "$last_landed" "${refs%,}" >>"$RUNS"
  stop_cluster
}

# ------------------------------------------------------------------------------------------------ reader
# The foreground client of the p99 part: a fixed schedule of READ_RATE GETs per second (open loop: a request's
# latency counts from when it was due, so a stalled server is not hidden by a client that waits for it), each a
# native GET through the proxy whose 307 is followed to the owner (and on, up to 3 redirects in all, as the owner may
# send it to the object's previous owner while it moves), over keep-alive connections, READ_THREADS at once at most.
# One line per request: due, sent, 307 received, done (epoch seconds), status, bytes, owner host:port, name,
# redirects followed (1: the proxy's only), and for a failed GET the start of the answer's body (or the client's exception).
cat >"$WORK/reader.py" <<'EOF'
import http.client, queue, random, signal, sys, threading, time, urllib.parse

def connect(conns, host, port):
    c = conns.get((host, port))
    if c is None:
        c = conns[(host, port)] = http.client.HTTPConnection(host, port, timeout=60)
    return c

def get(conns, host, port, path):
    for attempt in (0, 1):  # once more on a fresh connection if a kept-alive one was closed
        c = connect(conns, host, port)
        try:
            c.request("GET", path)
            r = c.getresponse()
            n, head = 0, b""
            while True:
                b = r.read(1 << 16)
                if not b:
                    break
                if r.status >= 400 and len(head) < 200:
                    head += b[:200 - len(head)]
                n += len(b)
            return r.status, r.getheader("Location"), n, head
        except (http.client.HTTPException, OSError):
            c.close()
            conns.pop((host, port), None)
            if attempt:
                raise

def owners(proxy, bucket, names_file):
    """name -> owner host:port from the proxy's 307, one line each"""
    u = urllib.parse.urlsplit(proxy)
    conns = {}
    for name in (l.strip() for l in open(names_file)):
        if name:
            st, loc, _, _ = get(conns, u.hostname, u.port, "/v1/objects/%s/%s" % (bucket, urllib.parse.quote(name)))
            if st != 307:
                sys.exit("GET %s through the proxy answered %d, expected 307" % (name, st))
            l = urllib.parse.urlsplit(loc)
            print("%s\t%s:%d" % (name, l.hostname, l.port))

def read(proxy, bucket, names_file, rate, threads, out_path, seed):
    u = urllib.parse.urlsplit(proxy)
    names = [l.strip() for l in open(names_file) if l.strip()]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    signal.signal(signal.SIGINT, lambda *a: stop.set())
    q = queue.Queue()
    lock = threading.Lock()
    out = open(out_path, "w")

    def worker():
        conns = {}
        while True:
            item = q.get()
            if item is None:
                return
            due, name = item
            sent = time.time()
            redirected, status, n, owner, head, hops = 0.0, 0, 0, "-", b"", 0
            try:
                st, loc, _, head = get(conns, u.hostname, u.port, "/v1/objects/%s/%s" % (bucket, urllib.parse.quote(name)))
                redirected = time.time()
                status = st
                hops = 0
                hop_ends = [redirected]
                while status == 307 and hops < 3:  # the owner may send it on to the object's holder, and back
                    l = urllib.parse.urlsplit(loc)
                    if hops == 0:
                        owner = "%s:%d" % (l.hostname, l.port)
                    hops += 1
                    status, loc, n, head = get(conns, l.hostname, l.port, l.path + ("?" + l.query if l.query else ""))
                    hop_ends.append(time.time())
            except Exception as e:  # counted as an error (status 0)
                status = 0
                head = repr(e).encode()
            done = time.time()
            if status == 200:  # each hop's time after the proxy's answer, for a slow GET's post-mortem (KEEP=1)
                detail = "hop_ms=" + ",".join("%.1f" % ((b - a) * 1e3) for a, b in zip(hop_ends, hop_ends[1:]))
            else:
                detail = " ".join(head.decode("utf-8", "replace").split())
            with lock:
                out.write("%.6f\t%.6f\t%.6f\t%.6f\t%d\t%d\t%s\t%s\t%d\t%s\n" % (due, sent, redirected, done, status, n, owner, name, hops, detail))

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for t in pool:
        t.start()
    rng = random.Random(seed)
    t0 = time.time() + 0.1
    k = 0
    while not stop.is_set():
        due = t0 + k / rate
        d = due - time.time()
        if d > 0 and stop.wait(d):
            break
        q.put((due, rng.choice(names)))
        k += 1
    for _ in pool:
        q.put(None)
    for t in pool:
        t.join(120)
    with lock:
        out.close()

if __name__ == "__main__":
    if sys.argv[1] == "owners":
        owners(*sys.argv[2:5])
    else:
        read(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), int(sys.argv[6]), sys.argv[7], int(sys.argv[8]))
EOF

# ------------------------------------------------------------------------------------------------ p99 part
p99_run() {
  local round="$1" name="p99-$1" prev state s0 s1 s2 s3 idle_a idle_b c0 c1 c2 pids
  local reads="$WORK/out/reads-$1.tsv" hot_before="$WORK/out/hot-owners-before-$1.tsv" hot_after="$WORK/out/hot-owners-after-$1.tsv"
  local flags=()
  [[ -z "$P99_BANDWIDTH" ]] || flags+=("--rebalance-bandwidth=$P99_BANDWIDTH")
  [[ -z "$STREAMS" ]] || flags+=("--rebalance-streams=$STREAMS")
  log "p99 round $round/$P99_ROUNDS: $P99_COUNT x 1MiB on t1 and t2, a reader at $READ_RATE GETs/s on $HOT_COUNT of them; idle ${IDLE_SECS}s, then t3 joins (cap: ${P99_BANDWIDTH:-the default})"
  start_cluster "$name" 2 "${flags[@]}"
  create_bucket
  load_objects "$P99_COUNT" 1MiB "$WORK/out/$name-put.json"
  wait_settled
  # the hot set: HOT_COUNT names of the data set, picked with a fixed seed from the listing
  python3 - "$PROXY_URL" "$BUCKET" "$HOT_COUNT" >"$WORK/out/hot.txt" <<'EOF' || die "listing the bucket failed"
import json, random, sys, urllib.parse, urllib.request
url, bucket, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names, token = [], None
while True:
    q = "limit=10000" + ("&token=" + urllib.parse.quote(token) if token else "")
    page = json.load(urllib.request.urlopen("%s/v1/buckets/%s?%s" % (url, bucket, q), timeout=60))
    names += [e["name"] for e in page.get("entries", [])]
    token = page.get("token")
    if not token:
        break
if len(names) < n:
    sys.exit("the listing has %d names, fewer than %d" % (len(names), n))
print("\n".join(random.Random(7).sample(sorted(names), n)))
EOF
  python3 "$WORK/reader.py" owners "$PROXY_URL" "$BUCKET" "$WORK/out/hot.txt" >"$hot_before" \
    || die "resolving the hot set's owners failed"
  drop_caches
  python3 "$WORK/reader.py" read "$PROXY_URL" "$BUCKET" "$WORK/out/hot.txt" "$READ_RATE" "$READ_THREADS" \
    "$reads" 1 >"$WORK/out/reader.out" 2>&1 &
  READER_PID=$!
  log "reader up (pid $READER_PID); warm-up ${WARMUP_SECS}s, then the idle window (${IDLE_SECS}s)"
  pause "$WARMUP_SECS"
  kill -0 "$READER_PID" 2>/dev/null || { cat "$WORK/out/reader.out" >&2; die "the reader exited"; }
  pids="$(target_pid t1) $(target_pid t2)"
  s0="$(snap)"
  idle_a="$(now)"
  # shellcheck disable=SC2086
  c0="$(cpu_ticks $pids)"
  pause "$IDLE_SECS"
  idle_b="$(now)"
  # shellcheck disable=SC2086
  local c_idle=$(($(cpu_ticks $pids) - c0))
  s1="$(snap)"
  kill -0 "$READER_PID" 2>/dev/null || { cat "$WORK/out/reader.out" >&2; die "the reader exited"; }
  read -r prev state < <(map_rebalance) || die "cannot read the cluster map"
  join_target t3 "${flags[@]}"
  wait_rb_start "$prev"
  s2="$(snap)"
  # shellcheck disable=SC2086
  c1="$(cpu_ticks $pids)"
  local c3 c4
  c3="$(cpu_ticks "$JOIN_PID")"
  wait_rb_end "$WORK/out/$name-job.json"
  s3="$(snap)"
  show_job "$WORK/out/$name-job.json"
  # shellcheck disable=SC2086
  c2="$(cpu_ticks $pids)"
  c4="$(cpu_ticks "$JOIN_PID")"
  pause 2
  stop_pid "$READER_PID" TERM 60
  READER_PID=""
  [[ -s "$reads" ]] || { cat "$WORK/out/reader.out" >&2; die "the reader recorded nothing"; }
  python3 "$WORK/reader.py" owners "$PROXY_URL" "$BUCKET" "$WORK/out/hot.txt" >"$hot_after" \
    || die "resolving the hot set's owners after the rebalance failed"
  local urls
  urls="$(curl -sf "$PROXY_URL/v1/cluster/map" | python3 -c '
import json, sys
print(json.dumps({t["url"].split("//")[1]: i for i, t in json.load(sys.stdin)["targets"].items()}))')"
  printf '{"type":"p99","round":%d,"reads":"%s","hot_before":"%s","hot_after":"%s","rb_id":%d,"join_launch":%s,"rb_seen":%s,"idle":[%s,%s],"job":%s,"put":%s,"snap_idle0":%s,"snap_idle1":%s,"snap_rb_start":%s,"snap_end":%s,"cpu_ticks":{"t1_t2_idle":%d,"t1_t2_rebalance":%d,"t3_rebalance":%d},"target_urls":%s}\n' \
    "$round" "$reads" "$hot_before" "$hot_after" "$RB_ID" "$JOIN_LAUNCH" "$RB_SEEN" "$idle_a" "$idle_b" \
    "$(jcompact "$WORK/out/$name-job.json")" "$(jcompact "$WORK/out/$name-put.json" put)" \
    "$s0" "$s1" "$s2" "$s3" "$c_idle" "$((c2 - c1))" "$((c4 - c3))" "$urls" >>"$RUNS"
  stop_cluster
}

# ------------------------------------------------------------------------------------------------ run
MEASURE_START="$(now)"
SIZES=()
((COUNT_1M == 0)) || SIZES+=("1MiB 1MiB $COUNT_1M")
((COUNT_64K == 0)) || SIZES+=("64KiB 64KiB $COUNT_64K")
if has_part throughput; then
  for ((round = 1; round <= ROUNDS; round++)); do
    for s in "${SIZES[@]}"; do
      read -r label size count <<<"$s"
      tp_round "$label" "$size" "$count" "$round"
    done
  done
fi
if has_part p99; then
  P99_COUNT_HOW="given"
  if [[ "$P99_COUNT" == auto ]]; then
    # Enough data that the rebalance lasts about 1.3 x MIN_DURING_SECS: a third of the objects move, at about the
    # rate one sender reached uncapped in the throughput part (the two senders share the disk and the cores); 4096
    # without that measurement. Between 3072 and 12288 objects (3 to 12 GiB).
    P99_COUNT="$(python3 - "$RUNS" "$MIN_DURING_SECS" <<'EOF'
import json, math, re, sys
from datetime import datetime
def ts(s):
    m = re.match(r"(.*?T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$", s)
    frac = m.group(2) or "0"
    return datetime.fromisoformat(m.group(1) + "+00:00").timestamp() + int(frac) / 10 ** len(frac)
rates = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "throughput" and r["size"] == "1MiB":
        j = r["job"]
        rates.append(j["bytes"]["moved"] / 2**20 / (ts(j["finished"]) - ts(j["started"])))
if not rates:
    print(4096)
else:
    rates.sort()
    print(min(12288, max(3072, math.ceil(1.3 * float(sys.argv[2]) * rates[len(rates) // 2] * 3))))
EOF
)"
    P99_COUNT_HOW="auto: from the throughput part's 1 MiB rate"
    grep -q '"type":"throughput","size":"1MiB"' "$RUNS" || P99_COUNT_HOW="auto: no 1 MiB throughput measurement, the fixed default"
    ((HOT_COUNT <= P99_COUNT)) || die "HOT_COUNT ($HOT_COUNT) must not exceed P99_COUNT ($P99_COUNT)"
    log "P99_COUNT=$P99_COUNT ($P99_COUNT_HOW)"
  fi
  for ((round = 1; round <= P99_ROUNDS; round++)); do
    p99_run "$round"
  done
fi
MEASURE_SECS="$(elapsed "$MEASURE_START" "$(now)")"

# ------------------------------------------------------------------------------------------------ report
java_version="$(java -version 2>&1 | sed -n 1p)"
rsync_version="$(command -v rsync >/dev/null && rsync --version | sed -n 1p | awk '{print $3}' || true)"
cp_version="$(cp --version | sed -n 1p)"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/rebalance-$stamp.json"

export BENCH_DIR="$here" BENCH_RUNS="$RUNS" BENCH_JAVA="$java_version" BENCH_RSYNC="$rsync_version" BENCH_CP="$cp_version" \
  BENCH_GIT="$git_rev${git_dirty:+-dirty}" BENCH_JAR_MTIME="$GRANARY_JAR_MTIME" BENCH_STAMP="$stamp" \
  BENCH_LOADAVG_START="$LOADAVG_START" BENCH_LOADAVG_END="$(loadavg)" BENCH_MEASURE_SECS="$MEASURE_SECS" \
  BENCH_TOTAL_SECS="$(elapsed "$T_START" "$(now)")" BENCH_WORK="$WORK" BENCH_CLK_TCK="$CLK_TCK" \
  BENCH_CACHE_DROPPED="$CACHE_DROPPED" BENCH_CACHE_NOTE="$CACHE_NOTE" BENCH_FS_SOURCE="$FS_SOURCE" BENCH_FS_TYPE="$FS_TYPE" \
  BENCH_DISK_DEV="$DISK_DEV" BENCH_P99_COUNT_HOW="${P99_COUNT_HOW:-}" \
  PARTS COUNT_1M COUNT_64K ROUNDS REFERENCES STREAMS DROP_CACHES P99_COUNT P99_ROUNDS P99_BANDWIDTH HOT_COUNT READ_RATE READ_THREADS \
  WARMUP_SECS IDLE_SECS MIN_DURING_SECS PUT_WORKERS TARGET_ARGS JVM_OPTS JOIN_JVM_OPTS BUCKET
python3 - >"$result_file" <<'EOF'
import glob, json, math, os, re, statistics, sys
from datetime import datetime

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
runs = [json.loads(l) for l in open(E["BENCH_RUNS"]) if l.strip()]
TCK = int(E["BENCH_CLK_TCK"])
MiB = float(1 << 20)
GOAL_THROUGHPUT = 0.8  # rebalance MiB/s per sender >= 0.8 x cp (+ sync) of the same files, 1 MiB objects
GOAL_P99 = 2.0         # foreground p99 during the rebalance <= 2 x idle, default bandwidth cap

def ts(s):
    """ISO-8601 instant with up to nanoseconds -> epoch seconds"""
    m = re.match(r"(.*?T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$", s)
    base = datetime.fromisoformat(m.group(1) + "+00:00").timestamp()
    frac = m.group(2) or "0"
    return base + int(frac) / 10 ** len(frac)

def r3(x, n=3):
    return None if x is None else round(x, n)

def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None

def med(xs):
    xs = [x for x in xs if x is not None]
    return r3(statistics.median(xs)) if xs else None

def delta(a, b, secs=None):
    """machine counters between two snaps: CPU busy/iowait shares, disk I/O"""
    out = {"loadavg_before": a["loadavg"], "loadavg_after": b["loadavg"]}
    ca, cb = a["cpu"], b["cpu"]
    if ca and cb:
        d = [y - x for x, y in zip(ca, cb)]
        total = sum(d[:8]) or 1  # user nice system idle iowait irq softirq steal
        out["cpu_busy_share"] = r3((total - d[3] - d[4]) / total)
        out["cpu_iowait_share"] = r3(d[4] / total)
    da, db = a["disk"], b["disk"]
    if da and db:
        d = [y - x for x, y in zip(da, db)]
        out["disk"] = {"reads": d[0], "read_bytes": d[1] * 512, "writes": d[2], "written_bytes": d[3] * 512,
                       "busy_ms": d[4], "flushes": d[5], "flush_ms": d[6]}
    for k, name in (("psi_mem_us", "memory_stall_ms"), ("psi_io_us", "io_stall_ms")):
        if a.get(k) is not None and b.get(k) is not None:
            out[name] = r3((b[k] - a[k]) / 1000.0, 1)
    if "direct_reclaim" in a and "direct_reclaim" in b:
        out["direct_reclaim_events"] = b["direct_reclaim"] - a["direct_reclaim"]
    return out

def sender_figures(job):
    """per sending target: objects and bytes sent, rates over the job's window (map change to success) and over
    the target's own part (its start to its walk's end)"""
    started, finished = ts(job["started"]), ts(job["finished"])
    job_s = finished - started
    senders = {}
    for tid, p in sorted(job["targets"].items()):
        if not p["sent"]:
            continue
        t_s = ts(p["finished"]) - ts(p["started"]) if p.get("finished") and p.get("started") else None
        senders[tid] = {
            "objects_sent": p["sent"],
            "bytes_sent": p["bytes_sent"],
            "failed": p["failed"],
            "bandwidth_cap_bytes_per_sec": p["bandwidth_cap"],
            "mib_per_sec": r3(p["bytes_sent"] / MiB / job_s, 1),
            "objects_per_sec": r3(p["sent"] / job_s, 1),
            "target_seconds": r3(t_s),
            "mib_per_sec_target_window": r3(p["bytes_sent"] / MiB / t_s, 1) if t_s else None,
            "objects_per_sec_target_window": r3(p["sent"] / t_s, 1) if t_s else None,
            "target_reported_bytes_per_sec": r3(p["bytes_per_second"], 0),
            "finished_before_job_s": r3(finished - ts(p["finished"])) if p.get("finished") else None,
        }
    return job_s, senders

# ---------------------------------------------------------------- throughput
throughput = {}
warnings = []
for size in ("1MiB", "64KiB"):
    rs = [r for r in runs if r["type"] == "throughput" and r["size"] == size]
    if not rs:
        continue
    rounds = []
    for r in rs:
        job = r["job"]
        job_s, senders = sender_figures(job)
        sent = sum(s["objects_sent"] for s in senders.values())
        sent_bytes = sum(s["bytes_sent"] for s in senders.values())
        if (r["moved_files"], r["moved_bytes"]) != (sent, sent_bytes):
            warnings.append("%s round %d: the joining target holds %d files (%d bytes), the job says %d objects (%d bytes) moved"
                            % (size, r["round"], r["moved_files"], r["moved_bytes"], sent, sent_bytes))
        g = senders.get("t1") or next(iter(senders.values()))
        refs = {}
        for tool, x in r["refs"].items():
            if (x["files"], x["bytes"]) != (r["moved_files"], r["moved_bytes"]):
                warnings.append("%s round %d: %s copied %d files (%d bytes), expected %d (%d)"
                                % (size, r["round"], tool, x["files"], x["bytes"], r["moved_files"], r["moved_bytes"]))
            total = x["copy_s"] + x["sync_s"]
            refs[tool] = {
                "copy_s": r3(x["copy_s"]), "sync_s": r3(x["sync_s"]), "total_s": r3(total),
                "cpu_s": r3(x["cpu_s"]),  # user + system of the tool (the sync's kernel work is not counted)
                "cpu_s_per_gib": r3(x["cpu_s"] / (x["bytes"] / 2**30), 2) if x["bytes"] else None,
                "mib_per_sec": r3(x["bytes"] / MiB / total, 1),
                "objects_per_sec": r3(x["files"] / total, 1),
                "mib_per_sec_no_sync": r3(x["bytes"] / MiB / x["copy_s"], 1),
                "objects_per_sec_no_sync": r3(x["files"] / x["copy_s"], 1),
                "machine_during_copy": delta(x["snap0"], x["snap1"]),
                "machine_during_sync": delta(x["snap1"], x["snap2"]),
            }
        ratios = {}
        for tool, x in refs.items():
            ratios["vs_%s_sync" % tool] = ratio(g["mib_per_sec"], x["mib_per_sec"])
            ratios["vs_%s_no_sync" % tool] = ratio(g["mib_per_sec"], x["mib_per_sec_no_sync"])
        ratios["target_window_vs_cp_sync"] = ratio(g["mib_per_sec_target_window"], refs["cp"]["mib_per_sec"])
        ratios["moving_vs_cp_sync"] = None  # filled below, once the moving rate is known
        m = delta(r["snap0"], r["snap1"])
        if m.get("disk") and sent:
            m["disk"]["flushes_per_object_moved"] = r3(m["disk"]["flushes"] / sent, 2)
        for tool, x in refs.items():
            d = x["machine_during_copy"].get("disk")
            d2 = x["machine_during_sync"].get("disk")
            if d and d2 and r["moved_files"]:
                d["flushes_per_file_incl_sync"] = r3((d["flushes"] + d2["flushes"]) / r["moved_files"], 2)
        lo, hi = r["landed"]
        moving = sent_bytes * (sent - 1) / sent / MiB / (hi - lo) if sent > 1 and hi > lo else None
        ratios["moving_vs_cp_sync"] = ratio(moving, refs["cp"]["mib_per_sec"])
        rounds.append({
            "round": r["round"],
            "objects_on_t1": r["objects"],
            "put": {k: r["put"].get(k) for k in ("count", "bytes", "errors", "ops_per_sec", "throughput_bytes_per_sec")},
            "rebalance": {
                "job": "rb-%d" % r["rb_id"], "state": job["state"],
                "job_seconds": r3(job_s), "started": job["started"], "finished": job["finished"],
                "join_to_start_s": r3(ts(job["started"]) - r["join_launch"]),
                "objects_moved": sent, "bytes_moved": sent_bytes,
                "senders": senders,
                # when the first and the last moved object landed on the receiver (its files' mtimes), from the job's
                # start: the time before the first is start-up (the walk's counting pass, the receiver learning the
                # cluster's metadata, retries); between the two, the objects after the first moved at moving_mib_per_sec
                "first_object_landed_s": r3(r["landed"][0] - ts(job["started"])),
                "last_object_landed_s": r3(r["landed"][1] - ts(job["started"])),
                "moving_mib_per_sec": r3(sent_bytes * (sent - 1) / sent / MiB / (r["landed"][1] - r["landed"][0]), 1)
                                      if sent > 1 and r["landed"][1] > r["landed"][0] else None,
                "moving_objects_per_sec": r3((sent - 1) / (r["landed"][1] - r["landed"][0]), 1)
                                          if sent > 1 and r["landed"][1] > r["landed"][0] else None,
                "cpu_s": {"t1": r3(r["cpu_ticks"]["t1"] / TCK), "t2": r3(r["cpu_ticks"]["t2"] / TCK)},
                "cpu_s_per_gib_moved": dict({k: r3(v / TCK / (sent_bytes / 2**30), 2) for k, v in r["cpu_ticks"].items()},
                                            both=r3(sum(r["cpu_ticks"].values()) / TCK / (sent_bytes / 2**30), 2)) if sent_bytes else None,
                "machine": m,
            },
            "moved_set": {"files": r["moved_files"], "bytes": r["moved_bytes"]},
            "reference": refs,
            "ratios": ratios,
        })
    g_mib = [x["rebalance"]["senders"].get("t1", {}).get("mib_per_sec") for x in rounds]
    g_obj = [x["rebalance"]["senders"].get("t1", {}).get("objects_per_sec") for x in rounds]
    summary = {
        "granary_mib_per_sec_per_sender": med(g_mib),
        "granary_objects_per_sec_per_sender": med(g_obj),
        "granary_mib_per_sec_target_window": med(x["rebalance"]["senders"].get("t1", {}).get("mib_per_sec_target_window") for x in rounds),
        "granary_moving_mib_per_sec": med(x["rebalance"]["moving_mib_per_sec"] for x in rounds),
        "granary_moving_objects_per_sec": med(x["rebalance"]["moving_objects_per_sec"] for x in rounds),
        "first_object_landed_s": med(x["rebalance"]["first_object_landed_s"] for x in rounds),
        "job_seconds": med(x["rebalance"]["job_seconds"] for x in rounds),
    }
    for tool in rounds[0]["reference"]:
        summary["%s_mib_per_sec" % tool] = med(x["reference"][tool]["mib_per_sec"] for x in rounds)
        summary["%s_mib_per_sec_no_sync" % tool] = med(x["reference"][tool]["mib_per_sec_no_sync"] for x in rounds)
        summary["%s_objects_per_sec" % tool] = med(x["reference"][tool]["objects_per_sec"] for x in rounds)
    for k in rounds[0]["ratios"]:
        summary["ratio_" + k] = med(x["ratios"][k] for x in rounds)
    throughput[size] = {"object_bytes": (1 << 20) if size == "1MiB" else (64 << 10), "summary": summary, "rounds": rounds}

# ---------------------------------------------------------------- foreground p99
def pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[max(0, math.ceil(q / 100 * len(xs)) - 1)]

def lat_stats(rows, t_ref=0.0, urls={}):
    ok = [x for x in rows if x["status"] == 200]
    lat = [(x["done"] - x["due"]) * 1000 for x in ok]       # from when the request was due (open loop)
    svc = [(x["done"] - x["sent"]) * 1000 for x in ok]      # from when it was sent
    red = [(x["redirected"] - x["sent"]) * 1000 for x in ok]  # the proxy's 307
    return {
        "requests": len(rows), "ok": len(ok), "errors": len(rows) - len(ok),
        # the distinct failures: status, where the 307 led (node id), the answer's body
        "error_detail": sorted({"%s %s %s" % (x["status"], urls.get(x["owner"], x["owner"]), x["detail"])
                                for x in rows if x["status"] != 200})[:5],
        "first_error_s": r3(min(x["due"] for x in rows if x["status"] != 200) - t_ref) if any(x["status"] != 200 for x in rows) else None,
        "last_error_s": r3(max(x["due"] for x in rows if x["status"] != 200) - t_ref) if any(x["status"] != 200 for x in rows) else None,
        "p50_ms": r3(pct(lat, 50)), "p90_ms": r3(pct(lat, 90)), "p99_ms": r3(pct(lat, 99)), "max_ms": r3(max(lat) if lat else None),
        "mean_ms": r3(statistics.mean(lat)) if lat else None,
        "service_p50_ms": r3(pct(svc, 50)), "service_p99_ms": r3(pct(svc, 99)),
        "redirect_p50_ms": r3(pct(red, 50)), "redirect_p99_ms": r3(pct(red, 99)),
        "late_starts": sum(1 for x in ok if x["sent"] - x["due"] > 0.005),  # waited > 5 ms for a free reader thread
        # GETs the owner sent on to the object's previous owner (get-from-neighbor by redirect): 2 redirects or more
        "sent_to_holder": sum(1 for x in ok if x.get("hops", 1) >= 2),
    }

def p99_round(r):
    """one p99 round: idle and during-rebalance latencies, the rebalance, a per-second timeline"""
    job = r["job"]
    job_s, senders = sender_figures(job)
    rows = []
    for line in open(r["reads"]):
        f = line.rstrip("\n").split("\t")
        rows.append({"due": float(f[0]), "sent": float(f[1]), "redirected": float(f[2]), "done": float(f[3]),
                     "status": int(f[4]), "bytes": int(f[5]), "owner": f[6], "name": f[7], "hops": int(f[8]),
                     "detail": f[9] if len(f) > 9 else ""})
    before = dict(l.rstrip("\n").split("\t") for l in open(r["hot_before"]) if l.strip())
    after = dict(l.rstrip("\n").split("\t") for l in open(r["hot_after"]) if l.strip())
    urls = r["target_urls"]
    moved = {n for n in before if after.get(n) != before[n]}
    ia, ib = r["idle"]
    da, db = ts(job["started"]), ts(job["finished"])
    idle = [x for x in rows if ia <= x["due"] < ib]
    during = [x for x in rows if da <= x["due"] < db]
    si, sd = lat_stats(idle, ia, urls), lat_stats(during, da, urls)
    sd_moved = lat_stats([x for x in during if x["name"] in moved], da, urls)
    sd_stayed = lat_stats([x for x in during if x["name"] not in moved], da, urls)
    # the rebalance without its first 5 s (the joining target's first seconds: a fresh JVM, metadata arriving)
    sd_late = lat_stats([x for x in during if x["due"] >= da + 5], da + 5, urls)
    # while the joining target starts (its JVM, warm-up and join rehearsal share the machine): launch to the map change
    starting = lat_stats([x for x in rows if r["join_launch"] <= x["due"] < da], r["join_launch"], urls)
    owners_during = {}
    for x in during:
        k = urls.get(x["owner"], x["owner"])
        owners_during[k] = owners_during.get(k, 0) + 1
    # one row per second from the idle window's start to the reader's end: due-second, GETs, p50, p99, max (ms)
    timeline = []
    t_end = max(x["due"] for x in rows)
    sec = int(ia)
    while sec <= t_end:
        lat = [(x["done"] - x["due"]) * 1000 for x in rows if sec <= x["due"] < sec + 1 and x["status"] == 200]
        errs = sum(1 for x in rows if sec <= x["due"] < sec + 1 and x["status"] != 200)
        phase = "idle" if ia <= sec < ib else "rebalance" if da <= sec + 0.5 < db else "-"
        timeline.append([round(sec - ia), phase, len(lat), r3(pct(lat, 50), 1), r3(pct(lat, 99), 1),
                         r3(max(lat) if lat else None, 1), errs])
        sec += 1
    caps = {p["bandwidth_cap"] for p in job["targets"].values()}
    m = delta(r["snap_rb_start"], r["snap_end"])
    fg = {
        "round": r["round"],
        "hot_objects": len(before), "hot_objects_moved": len(moved),
        "bandwidth_cap_bytes_per_sec": sorted(caps)[0] if len(caps) == 1 else sorted(caps),
        "bandwidth_cap_is_default": E["P99_BANDWIDTH"] == "",
        "idle": dict(si, window_s=r3(ib - ia), machine=delta(r["snap_idle0"], r["snap_idle1"])),
        "during": dict(sd, window_s=r3(db - da), gets_per_owner=owners_during),
        "during_moved_objects": sd_moved,
        "during_staying_objects": sd_stayed,
        "during_after_first_5s": sd_late,
        "while_joining_target_starts": dict(starting, window_s=r3(da - r["join_launch"])),
        "ratio_p99_while_joining_target_starts": ratio(starting["p99_ms"], si["p99_ms"]),
        "ratio_p99_after_first_5s": ratio(sd_late["p99_ms"], si["p99_ms"]),
        "ratio_p99": ratio(sd["p99_ms"], si["p99_ms"]),
        "ratio_p50": ratio(sd["p50_ms"], si["p50_ms"]),
        "ratio_service_p99": ratio(sd["service_p99_ms"], si["service_p99_ms"]),
        "rebalance": {
            "job": "rb-%d" % r["rb_id"], "state": job["state"], "job_seconds": r3(job_s),
            "started": job["started"], "finished": job["finished"],
            "join_to_start_s": r3(da - r["join_launch"]),
            "objects_moved": job["objects"]["moved"], "bytes_moved": job["bytes"]["moved"],
            "mib_per_sec_total": r3(job["bytes"]["moved"] / MiB / job_s, 1),
            "senders": senders,
            "cap_binding": {t: (s["mib_per_sec_target_window"] or 0) * MiB >= 0.9 * s["bandwidth_cap_bytes_per_sec"]
                            if s["bandwidth_cap_bytes_per_sec"] else False for t, s in senders.items()},
            "cpu_s": {"t1_t2_idle_window": r3(r["cpu_ticks"]["t1_t2_idle"] / TCK),
                      "t1_t2_rebalance": r3(r["cpu_ticks"]["t1_t2_rebalance"] / TCK),
                      "t3_rebalance": r3(r["cpu_ticks"]["t3_rebalance"] / TCK)},
            "machine": m,
        },
        "put": {k: r["put"].get(k) for k in ("count", "bytes", "errors", "ops_per_sec", "throughput_bytes_per_sec")},
        "timeline_columns": ["second", "phase", "gets_ok", "p50_ms", "p99_ms", "max_ms", "errors"],
        "timeline": timeline,
    }
    if db - da < float(E["MIN_DURING_SECS"]):
        warnings.append("p99 round %d: its rebalance lasted %.1f s, under MIN_DURING_SECS (%s): its p99 rests on few GETs; raise P99_COUNT"
                        % (r["round"], db - da, E["MIN_DURING_SECS"]))
    if si["errors"] or sd["errors"]:
        warnings.append("p99 round %d: foreground GETs failed: %d idle, %d during the rebalance (%s)" % (r["round"], si["errors"], sd["errors"], sd["error_detail"]))
    return fg


foreground = None
pr = [p99_round(r) for r in runs if r["type"] == "p99"]
if pr:
    # the round whose p99 ratio is the median (the lower middle one for an even count) speaks for the part; every
    # round's figures are listed, so a machine stall in one round shows as an outlier, not as the result
    ranked = sorted(pr, key=lambda f: (f["ratio_p99"] is None, f["ratio_p99"] or 0))
    foreground = dict(ranked[(len(ranked) - 1) // 2])
    foreground["median_of_rounds"] = len(pr)
    foreground["rounds"] = [{
        "round": f["round"], "ratio_p99": f["ratio_p99"], "ratio_p99_after_first_5s": f["ratio_p99_after_first_5s"],
        "ratio_p99_while_joining_target_starts": f["ratio_p99_while_joining_target_starts"],
        "idle_p99_ms": f["idle"]["p99_ms"], "during_p99_ms": f["during"]["p99_ms"],
        "during_max_ms": f["during"]["max_ms"], "failed_gets": f["idle"]["errors"] + f["during"]["errors"],
        "idle_machine": {k: f["idle"]["machine"].get(k) for k in ("memory_stall_ms", "io_stall_ms", "direct_reclaim_events")},
        "during_machine": {k: f["rebalance"]["machine"].get(k) for k in ("memory_stall_ms", "io_stall_ms", "direct_reclaim_events")},
    } for f in pr]
    foreground["failed_gets_all_rounds"] = sum(x["failed_gets"] for x in foreground["rounds"])

# ---------------------------------------------------------------- goals
goals = {}
one = throughput.get("1MiB")
if one:
    v = one["summary"]["ratio_vs_cp_sync"]
    goals["throughput_1MiB"] = {
        "goal_min_ratio": GOAL_THROUGHPUT,
        "ratio": v,
        "what": "rebalance MiB/s per sending target (map change to success, cap off) / cp then sync of the same files",
        "ratio_vs_cp_no_sync": one["summary"]["ratio_vs_cp_no_sync"],
        "ratio_vs_rsync_sync": one["summary"].get("ratio_vs_rsync_sync"),
        "met": v is not None and v >= GOAL_THROUGHPUT,
    }
if foreground:
    v = foreground["ratio_p99"]
    goals["foreground_p99"] = {
        "goal_max_ratio": GOAL_P99,
        "ratio": v,
        "what": "foreground GET p99 while the rebalance runs / idle p99 (latency from when each GET was due); "
                "a failed GET has no latency, so any failed GET fails the goal too",
        "bandwidth_cap_is_default": foreground["bandwidth_cap_is_default"],
        "failed_gets": foreground["failed_gets_all_rounds"],
        "ratio_after_first_5s": foreground["ratio_p99_after_first_5s"],
        "rounds": foreground["median_of_rounds"],
        "ratio_each_round": [x["ratio_p99"] for x in foreground["rounds"]],
        "met": v is not None and v <= GOAL_P99 and foreground["failed_gets_all_rounds"] == 0,
    }
goals["all_met"] = all(g["met"] for g in goals.values()) if goals else None

def issues(paths):
    out = {}
    for path in paths:
        try:
            lines = [l.rstrip() for l in open(path, errors="replace") if re.search(r"\b(WARN|ERROR|Exception|SEVERE)\b", l)]
        except OSError:
            continue
        if lines:
            out[os.path.relpath(path, E["BENCH_WORK"])] = {"count": len(lines), "first": lines[:5]}
    return out

doc = {
    "benchmark": "rebalance",
    "timestamp": E["BENCH_STAMP"],
    "machine": {
        **host_facts(),
        "java": E["BENCH_JAVA"],
        "cp": E["BENCH_CP"],
        "rsync": E["BENCH_RSYNC"] or None,
        "granary_git": E["BENCH_GIT"],
        "granary_jar_built": E["BENCH_JAR_MTIME"],
        "file_system": {"source": E["BENCH_FS_SOURCE"], "type": E["BENCH_FS_TYPE"], "disk": E["BENCH_DISK_DEV"] or None},
        "loadavg_start": E["BENCH_LOADAVG_START"],
        "loadavg_end": E["BENCH_LOADAVG_END"],
    },
    "parameters": {
        "parts": E["PARTS"].split(),
        "throughput_objects": {"1MiB": int(E["COUNT_1M"]), "64KiB": int(E["COUNT_64K"])},
        "rounds": int(E["ROUNDS"]),
        "references": E["REFERENCES"].split(),
        "rebalance_streams": int(E["STREAMS"]) if E["STREAMS"] else "default (16)",
        "page_cache": {"drop_requested": E["DROP_CACHES"] == "1", "dropped": E["BENCH_CACHE_DROPPED"] == "1",
                       "how": E["BENCH_CACHE_NOTE"]},
        "p99_objects": int(E["P99_COUNT"]) if E["P99_COUNT"].isdigit() else E["P99_COUNT"],
        "p99_objects_how": E["BENCH_P99_COUNT_HOW"] or None,
        "p99_bandwidth": E["P99_BANDWIDTH"] or "default (32MiB)",
        "p99_rounds": int(E["P99_ROUNDS"]),
        "hot_objects": int(E["HOT_COUNT"]),
        "read_rate_per_sec": int(E["READ_RATE"]),
        "read_threads": int(E["READ_THREADS"]),
        "warmup_s": int(E["WARMUP_SECS"]),
        "idle_s": int(E["IDLE_SECS"]),
        "put_workers": int(E["PUT_WORKERS"]),
        "target_args": E["TARGET_ARGS"],
        "jvm_opts": E["JVM_OPTS"],
        "join_jvm_opts": E["JOIN_JVM_OPTS"],
        "bucket": E["BUCKET"],
        "method": {
            "throughput": "granary local with 1 target (--rebalance-bandwidth=0) holding the objects (PUT by granary load); "
                          "page cache dropped; a second target joins; the job rb-N from its start (the map change) to "
                          "'succeeded'; per sending target objects and bytes sent over that window. References: the files "
                          "the joining target then holds (exactly the moved set), page cache dropped, copied with each tool "
                          "into a new directory on the same file system, timed without and with a sync afterwards",
            "p99": "granary local with 2 targets holding the objects; a reader (python, keep-alive) GETs hot objects "
                   "through the proxy, following the 307, on a fixed schedule (latency counted from when each GET was due); "
                   "the idle window, then a third target joins; the during window is the job's start to its end",
        },
    },
    "throughput": throughput,
    "foreground": foreground,
    "goals": goals,
    "times": {"measure_s": float(E["BENCH_MEASURE_SECS"]), "total_s": float(E["BENCH_TOTAL_SECS"])},
    "diagnostics": {
        "warnings": warnings,
        "granary_log_issues": issues(sorted(glob.glob(os.path.join(E["BENCH_WORK"], "*", "logs", "*.log")))),
    },
}
print(json.dumps(doc, indent=2))
EOF
cat "$result_file"
log "results written to $result_file"
python3 - "$result_file" >&2 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for size, t in d["throughput"].items():
    s = t["summary"]
    print("  %-5s rebalance %.1f MiB/s, %.0f objects/s per sender; cp+sync %.1f MiB/s (cp alone %.1f); ratio %.2f (%.2f without sync)%s"
          % (size, s["granary_mib_per_sec_per_sender"], s["granary_objects_per_sec_per_sender"], s["cp_mib_per_sec"],
             s["cp_mib_per_sec_no_sync"], s["ratio_vs_cp_sync"], s["ratio_vs_cp_no_sync"],
             "; rsync+sync ratio %.2f" % s["ratio_vs_rsync_sync"] if s.get("ratio_vs_rsync_sync") else ""))
f = d["foreground"]
if f:
    print("  foreground GET p99 ratio per round: %s (median round %d reported)" % (
        ", ".join("%s" % x["ratio_p99"] for x in f["rounds"]), f["round"]))
    print("  foreground GET p50/p99: idle %.1f / %.1f ms, during the rebalance %.1f / %.1f ms: p99 ratio %.2f (%d + %d GETs, %d errors); rebalance %.1f MiB/s in %.1f s"
          % (f["idle"]["p50_ms"], f["idle"]["p99_ms"], f["during"]["p50_ms"], f["during"]["p99_ms"], f["ratio_p99"],
             f["idle"]["requests"], f["during"]["requests"], f["idle"]["errors"] + f["during"]["errors"],
             f["rebalance"]["mib_per_sec_total"], f["rebalance"]["job_seconds"]))
    l = f["during_after_first_5s"]
    print("  foreground GET p99 without the rebalance's first 5 s: %s ms (ratio %s); p99 of hot objects that moved: %s ms, that stayed: %s ms"
          % (l["p99_ms"], f["ratio_p99_after_first_5s"], f["during_moved_objects"]["p99_ms"], f["during_staying_objects"]["p99_ms"]))
    j = f["while_joining_target_starts"]
    print("  foreground GET p99 while the joining target starts (%.1f s before the rebalance): %s ms (ratio %s)"
          % (j["window_s"], j["p99_ms"], f["ratio_p99_while_joining_target_starts"]))
for k, g in d["goals"].items():
    if k != "all_met":
        print("  goal %s: ratio %s, met: %s" % (k, g["ratio"], g["met"]))
for w in d["diagnostics"]["warnings"]:
    print("  WARNING: " + w)
EOF
