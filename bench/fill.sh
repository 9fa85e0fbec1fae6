#!/usr/bin/env bash
# Fill: what a target's metadata costs as it fills. One `granary local` target first holds HOT small objects PUT
# through the cluster (the reference, "1,000 objects"); then, offline, FILL more records are written into its
# metadata through the real store (target test helper io.granary.target.meta.MetaFill: ObjectStore.locate + the
# MetaStore.publish a PUT's commit ends with, each record on its HRW mountpath), their names interleaved with the hot
# names in key order, so the hot keys spread over the whole key space (10 million records at the defaults). Both
# states are measured the same way, with the cluster restarted over its data inside a memory cgroup of MEM_LIMIT
# (page cache included, so the cache is too small for the metadata) after the page cache is dropped: start-up time to
# "cluster is up", warm GETs of the hot objects straight to the target (`granary load --direct`: throughput, p50,
# p99), the target's RSS; in the filled state also the RocksDB size on disk, the fill rate, and a paged listing of a
# prefix holding about LIST_PREFIX_KEYS keys. Goals (reported, never enforced): warm GET at the filled size >= 0.9x
# the reference's throughput, p99 <= 2x.
#
# Prints one JSON document on stdout and writes it to bench/results/fill-<timestamp>.json. Progress goes to
# stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
HOT="${HOT:-1000}"                       # objects PUT through the cluster: the reference set, and what the GETs read
SIZE="${SIZE:-16KiB}"                    # their size (and the size every fill record states)
FILL="${FILL:-}"                         # metadata records added offline (default: 10,000,000 - HOT: 10 million in all)
WORKERS="${WORKERS:-16}"                 # loader workers of the GET runs
DURATION="${DURATION:-20}"               # seconds of each timed GET run
WARMUP="${WARMUP:-10}"                  # seconds of GETs before each timed run (same names and workers; 0: none); JIT needs it
# memory cgroup of the restarted cluster, page cache included (0: none). The cluster's processes and the cache of
# their jars and libraries leave about 160 MiB of page cache at the default (2026-11-28; 768 MiB left 295 once the
# nodes had shrunk): less than the metadata of 10 million records (about 28 bytes each on disk)
MEM_LIMIT="${MEM_LIMIT:-640MiB}"
DROP_CACHES="${DROP_CACHES:-1}"          # 1: sync and drop the page cache before each measured start (needs root)
LIST_PREFIX_KEYS="${LIST_PREFIX_KEYS:-1000000}" # keys the timed listing should cover (the closest prefix is taken)
LIST_PAGE="${LIST_PAGE:-1000}"           # keys per listing page (limit=, 1 to 10000)
FILL_THREADS="${FILL_THREADS:-2}"        # writer threads of the fill helper
GRANARY_ARGS="${GRANARY_ARGS:-}"         # extra arguments for `granary local`
# JVM options of the launcher (not the nodes); by default those ./granary gives `granary local` ("" for none)
GRANARY_JAVA_OPTS="${GRANARY_JAVA_OPTS--Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
START_TIMEOUT="${START_TIMEOUT:-900}"    # seconds to wait for the cluster (a filled target counts its records first)
BUILD="${BUILD:-auto}"                   # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                        # 1: keep the work dir (cluster data, node logs, loader output)
BUCKET="${BUCKET:-fill}"
TARGETS=1                                # one target: its metadata is what fills (not a knob)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[fill %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[fill] ERROR: %s\n' "$*" >&2; exit 1; }

# bytes SIZE: 4096, 16KiB, 2MiB, 1GiB -> bytes (empty when malformed)
bytes() {
  [[ "$1" =~ ^([0-9]+)(|KiB|MiB|GiB)$ ]] || return 0
  local n="${BASH_REMATCH[1]}"
  case "${BASH_REMATCH[2]}" in
    KiB) echo $((n << 10)) ;;
    MiB) echo $((n << 20)) ;;
    GiB) echo $((n << 30)) ;;
    *) echo $((10#$n)) ;;
  esac
}

is_uint "$HOT" || die "HOT must be a non-negative integer, got '$HOT'"
[[ -n "$FILL" ]] || FILL=$((HOT <= 10000000 ? 10000000 - HOT : 0))
for v in HOT FILL WORKERS DURATION WARMUP DROP_CACHES LIST_PREFIX_KEYS LIST_PAGE FILL_THREADS START_TIMEOUT KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((HOT >= 1 && HOT <= 100000)) || die "HOT must be 1 to 100000, got $HOT"
((FILL <= 1000000000)) || die "FILL must be at most 1000000000, got $FILL"
((WORKERS >= 1 && WORKERS <= 256)) || die "WORKERS must be 1 to 256, got $WORKERS"
((DURATION >= 1)) || die "DURATION must be at least 1"
((LIST_PREFIX_KEYS >= 1)) || die "LIST_PREFIX_KEYS must be at least 1"
((LIST_PAGE >= 1 && LIST_PAGE <= 10000)) || die "LIST_PAGE must be 1 to 10000 (the listing's limit), got $LIST_PAGE"
((FILL_THREADS >= 1 && FILL_THREADS <= 64)) || die "FILL_THREADS must be 1 to 64, got $FILL_THREADS"
((START_TIMEOUT >= 10)) || die "START_TIMEOUT must be at least 10"
((DROP_CACHES <= 1 && KEEP <= 1)) || die "DROP_CACHES and KEEP must be 0 or 1"
SIZE_BYTES="$(bytes "$SIZE")"
[[ -n "$SIZE_BYTES" ]] && ((SIZE_BYTES >= 1 && SIZE_BYTES <= 1 << 30)) \
  || die "SIZE takes a size of 1 byte to 1GiB such as 16KiB, 1MiB or 4096, got '$SIZE'"
MEM_LIMIT_BYTES="$(bytes "$MEM_LIMIT")"
[[ -n "$MEM_LIMIT_BYTES" ]] || die "MEM_LIMIT takes a size such as 1536MiB or 2GiB (0: no cgroup), got '$MEM_LIMIT'"
((MEM_LIMIT_BYTES == 0 || MEM_LIMIT_BYTES >= 256 << 20)) \
  || die "MEM_LIMIT must be 0 (no cgroup) or at least 256MiB (a proxy, a target and the launcher need that much), got $MEM_LIMIT"
[[ "$BUCKET" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] || die "BUCKET must be 3-63 characters [a-z0-9.-], got '$BUCKET'"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"

# The memory cgroup (v1, the hierarchy mounted at /sys/fs/cgroup/memory): a child of the cgroup this script runs in,
# so whatever accounts for this script's session still accounts for the cluster.
CG_ROOT=/sys/fs/cgroup/memory
CG_HOME=""
if ((MEM_LIMIT_BYTES > 0)); then
  [[ -f "$CG_ROOT/memory.limit_in_bytes" ]] \
    || die "MEM_LIMIT needs the cgroup v1 memory controller at $CG_ROOT (not mounted here); MEM_LIMIT=0 runs without a limit"
  ((EUID == 0)) || die "MEM_LIMIT needs root (a memory cgroup is created); MEM_LIMIT=0 runs without a limit"
  CG_HOME="$CG_ROOT$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)"
  CG_HOME="${CG_HOME%/}"
  [[ -w "$CG_HOME/cgroup.procs" ]] || die "cannot write $CG_HOME/cgroup.procs (the cgroup this script runs in)"
fi
if ((DROP_CACHES)); then
  [[ -w /proc/sys/vm/drop_caches ]] || die "DROP_CACHES=1 needs root (writes /proc/sys/vm/drop_caches); DROP_CACHES=0 skips it"
fi

# ------------------------------------------------------------------------------------------------ cleanup
WORK=""
GRANARY_PID=""
HELPER_PID=""
CG=""
# cg_leave: this shell back into the cgroup it came from (it enters the cluster's only to start the launcher)
cg_leave() {
  [[ -z "$CG_HOME" ]] || echo "$$" >"$CG_HOME/cgroup.procs" 2>/dev/null || true
}
cg_remove() {
  [[ -n "$CG" && -d "$CG" ]] || return 0
  cg_leave
  local p i procs
  for ((i = 0; i < 100; i++)); do
    rmdir "$CG" 2>/dev/null && return 0
    # only this run's processes are in it: the launcher and the nodes it started (cgroup files have no size: read)
    procs="$(cat "$CG/cgroup.procs" 2>/dev/null || true)"
    [[ -z "$procs" ]] || log "killing what is left in cgroup $CG: $(xargs <<<"$procs")"
    for p in $procs; do kill -KILL "$p" 2>/dev/null || true; done
    sleep 0.1
  done
  log "WARNING: could not remove cgroup $CG"
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  cg_leave
  [[ -z "$HELPER_PID" ]] || stop_pid "$HELPER_PID" TERM 10
  if [[ -n "$GRANARY_PID" ]] && kill -0 "$GRANARY_PID" 2>/dev/null; then
    log "stopping granary local (pid $GRANARY_PID)"
    stop_pid "$GRANARY_PID" TERM 60
  fi
  cg_remove
  end_run "$rc" "$WORK" "$KEEP"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ------------------------------------------------------------------------------------------------ tools
for t in curl python3 java javac pgrep du awk; do
  command -v "$t" >/dev/null || die "required tool '$t' is missing"
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-fill.XXXXXX")"
chmod 755 "$WORK"
mkdir -p "$WORK/out" "$WORK/helper" "$results_dir"
log "work dir $WORK"
LOADAVG_START="$(cut -d' ' -f1-3 /proc/loadavg)"
T0="$(date +%s)"

if ((MEM_LIMIT_BYTES > 0)); then
  CG="$CG_HOME/granary-fill-$$"
  mkdir "$CG" || die "cannot create cgroup $CG"
  echo "$MEM_LIMIT_BYTES" >"$CG/memory.limit_in_bytes" || die "cannot set $CG/memory.limit_in_bytes"
  [[ "$(cat "$CG/memory.limit_in_bytes")" -le "$MEM_LIMIT_BYTES" ]] || die "the kernel did not take the memory limit"
  log "memory cgroup $CG: limit $MEM_LIMIT ($MEM_LIMIT_BYTES bytes)"
fi

# ------------------------------------------------------------------------------------------------ granary, helper
# Build if needed (BUILD=auto), then run a private copy of the distribution: another developer may rebuild
# cli/target while this runs (a jar rewritten under a running JVM breaks it).
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
# The fill helper, compiled from the target module's test sources against the very jars the cluster runs (no test
# dependencies: it uses the store's main classes only).
HELPER_SRC="$repo/target/src/test/java/io/granary/target/meta/MetaFill.java"
[[ -f "$HELPER_SRC" ]] || die "the fill helper $HELPER_SRC is missing"
javac -nowarn -d "$WORK/helper" -cp "$WORK/dist/lib/*" "$HELPER_SRC" >"$WORK/out/javac.txt" 2>&1 \
  || { cat "$WORK/out/javac.txt" >&2; die "compiling the fill helper failed"; }

GRANARY_PORT="$(free_ports $((TARGETS + 1)))"
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
# A fixed secret for all three starts of the cluster: the loader's --direct signs with it (env, never a flag).
GRANARY_CLUSTER_SECRET="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export GRANARY_CLUSTER_SECRET


# drop_caches: sync, then the page cache, dentries and inodes dropped (DROP_CACHES=1)
drop_caches() {
  ((DROP_CACHES)) || return 0
  sync
  echo 3 >/proc/sys/vm/drop_caches || die "writing /proc/sys/vm/drop_caches failed"
  log "page cache dropped"
}

# start_cluster PHASE: starts `granary local` over $WORK/granary (inside the cgroup when there is one: this shell
# enters it for the fork, so the launcher and the nodes it starts are in it, and leaves it at once), records the
# seconds from the launch to "cluster is up" in $WORK/out/PHASE.startup and the target's pid in TARGET_PID.
start_cluster() {
  local t0 t1
  [[ -z "$CG" ]] || echo "$$" >"$CG/cgroup.procs" || die "cannot enter cgroup $CG"
  t0="$(date +%s.%N)"
  start_granary_local
  t1="$(date +%s.%N)"
  cg_leave
  cp "$WORK/granary-local.out" "$WORK/out/$1-local.out"
  python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))' "$t0" "$t1" >"$WORK/out/$1.startup"
  TARGET_PID="$(pgrep -f "GranaryCommand target .*$WORK/granary" | head -n 1)"
  [[ -n "$TARGET_PID" ]] || die "the target's process was not found"
  if [[ -n "$CG" ]]; then
    grep -qx "$TARGET_PID" "$CG/cgroup.procs" || die "the target (pid $TARGET_PID) is not in cgroup $CG"
  fi
  log "$1: cluster up in $(cat "$WORK/out/$1.startup") s (target pid $TARGET_PID)"
}

stop_cluster() {
  log "stopping granary local (pid $GRANARY_PID)"
  stop_pid "$GRANARY_PID" TERM 120
  GRANARY_PID=""
  TARGET_PID=""
}

# snap FILE: the counters a measurement is judged by, as one JSON line: target CPU ticks, the target's storage reads
# (/proc/PID/io read_bytes: what missed the page cache) and major faults, VmRSS, the machine's CPU times
# (/proc/stat: iowait), the cgroup's memory figures
snap() {
  python3 - "$TARGET_PID" "${CG:-}" >"$1" <<'EOF'
import json, sys, time
pid, cg = sys.argv[1], sys.argv[2]
out = {"t": time.monotonic()}
s = open("/proc/%s/stat" % pid).read()
f = s[s.rindex(")") + 2:].split()
out["ticks"] = int(f[11]) + int(f[12])
out["majflt"] = int(f[9])
for line in open("/proc/%s/io" % pid):
    k, v = line.split(":")
    if k in ("read_bytes", "write_bytes", "rchar"):
        out[k] = int(v)
for line in open("/proc/%s/status" % pid):
    if line.startswith("VmRSS:"):
        out["rss_kb"] = int(line.split()[1])
cpu = open("/proc/stat").readline().split()[1:]
out["cpu"] = [int(x) for x in cpu]
if cg:
    st = {}
    for line in open(cg + "/memory.stat"):
        k, v = line.split()
        st[k] = int(v)
    out["cg"] = {"cache": st.get("cache"), "rss": st.get("rss"), "mapped_file": st.get("mapped_file"),
                 "pgmajfault": st.get("pgmajfault"),
                 "usage": int(open(cg + "/memory.usage_in_bytes").read()),
                 "max_usage": int(open(cg + "/memory.max_usage_in_bytes").read()),
                 "failcnt": int(open(cg + "/memory.failcnt").read())}
print(json.dumps(out))
EOF
}

# measure PHASE: warm-up, then the timed warm GET run of the hot set straight to its target, with the counters
# around it
measure() {
  if ((WARMUP > 0)); then
    log "$1: warm-up, ${WARMUP}s of GETs ($WORKERS workers, --direct)"
    load_run "$1-warmup" --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put 0 --names "$WORK/names.txt" --direct \
      --workers "$WORKERS" --duration "${WARMUP}s" --seed 3
  fi
  log "$1: timed GETs, ${DURATION}s ($WORKERS workers, --direct)"
  snap "$WORK/out/$1-before.snap"
  load_run "$1" --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put 0 --names "$WORK/names.txt" --direct \
    --workers "$WORKERS" --duration "${DURATION}s" --seed 4
  snap "$WORK/out/$1-after.snap"
}

# ------------------------------------------------------------------------------------------------ setup: the hot set
log "setup: first start of the cluster, bucket $BUCKET, $HOT objects of $SIZE"
start_cluster first
code="$(curl -s -o "$WORK/out/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/$BUCKET")"
[[ "$code" =~ ^2 ]] || { cat "$WORK/out/bucket.out" >&2; die "creating bucket $BUCKET answered HTTP $code"; }
BUCKET_ID="$(curl -sf "$PROXY_URL/v1/buckets" | python3 -c 'import json, sys
for b in json.load(sys.stdin)["buckets"]:
    if b["bucket"]["name"] == sys.argv[1] and b["bucket"]["provider"] == "ais":
        print(b["id"])' "$BUCKET")" || die "cannot read the bucket list"
[[ "$BUCKET_ID" =~ ^[A-Za-z0-9._-]+$ ]] || die "bucket $BUCKET has no id in GET /v1/buckets (got '$BUCKET_ID')"
log "bucket ais://$BUCKET id $BUCKET_ID"

# One PUT worker: the names are then loader-0/w000-000000000, ...001, ... in order, so a prefix of the counter holds
# a round number of hot names and of the records between them (the listing's prefix below).
load_run put --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put 100 --max-puts "$HOT" --duration 0 \
  --min-size "$SIZE_BYTES" --max-size "$SIZE_BYTES" --workers 1 --seed 1
python3 - "$PROXY_URL" "$BUCKET" "$WORK/names.txt" "$HOT" "$SIZE_BYTES" <<'EOF' || die "the hot set is not as PUT"
import json, sys, urllib.parse, urllib.request
url, bucket, out, hot, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
entries, token = [], None
while True:
    q = "limit=10000" + ("&token=" + urllib.parse.quote(token) if token else "")
    page = json.load(urllib.request.urlopen("%s/v1/buckets/%s?%s" % (url, bucket, q), timeout=60))
    entries += page.get("entries", [])
    token = page.get("token")
    if not token:
        break
if len(entries) != hot:
    sys.exit("the bucket lists %d objects, expected %d" % (len(entries), hot))
bad = [e for e in entries if e["size"] != size or "~" in e["name"]]
if bad:
    sys.exit("unexpected object %s" % bad[0])
with open(out, "w") as f:
    for e in entries:
        f.write(e["name"] + "\n")
print("    listed %d hot objects, %s .. %s" % (len(entries), entries[0]["name"], entries[-1]["name"]), file=sys.stderr)
EOF
first="$(head -n 1 "$WORK/names.txt")"
got="$(curl -s -L -o /dev/null -w '%{http_code} %{size_download}' "$PROXY_URL/v1/objects/$BUCKET/$first")"
[[ "$got" == "200 $SIZE_BYTES" ]] || die "GET of $first through the proxy gave '$got', expected '200 $SIZE_BYTES'"
# every hot object once, straight from its target (the --direct path the timed runs take)
load_run gettest --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put 0 --names "$WORK/names.txt" --direct \
  --workers "$WORKERS" --epochs 1 --duration 0
python3 -c 'import json, sys; n = json.load(open(sys.argv[1]))["get"]["count"]
sys.exit(0 if n == int(sys.argv[2]) else "GET-test read %d of %s objects" % (n, sys.argv[2]))' \
  "$WORK/out/gettest.json" "$HOT" || die "the GET test did not read every hot object"
stop_cluster

# ------------------------------------------------------------------------------------------------ reference
log "reference: $HOT objects; restart over the data$([[ -z "$CG" ]] || echo " in the cgroup ($MEM_LIMIT)")"
drop_caches
start_cluster reference
snap "$WORK/out/reference-up.snap"
measure reference
stop_cluster

# ------------------------------------------------------------------------------------------------ fill
MOUNTPATHS=()
for d in "$WORK"/granary/t1/mp*; do
  [[ -d "$d/.granary/meta" ]] && MOUNTPATHS+=("$d")
done
((${#MOUNTPATHS[@]} >= 1)) || die "no mountpath with metadata under $WORK/granary/t1"
mp_list="$(IFS=,; echo "${MOUNTPATHS[*]}")"
log "fill: $FILL records into ${#MOUNTPATHS[@]} mountpath(s), $FILL_THREADS thread(s) (the cluster is stopped)"
# the store's log lines (logback, as the target logs them) go to stderr with the helper's progress
cat >"$WORK/helper/logback.xml" <<'XML'
<configuration>
  <appender name="err" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <logger name="io.granary" level="INFO"/>
  <root level="WARN"><appender-ref ref="err"/></root>
</configuration>
XML
# in the background, so that a signal reaches this script's trap at once (a foreground child would delay it)
java -Xmx1g -Dlogback.configurationFile="$WORK/helper/logback.xml" -cp "$WORK/helper:$WORK/dist/lib/*" \
  io.granary.target.meta.MetaFill "$mp_list" "$BUCKET" ais "$BUCKET_ID" "$WORK/names.txt" "$FILL" "$FILL_THREADS" \
  >"$WORK/out/fill.out" 2> >(tee "$WORK/out/fill.log" | sed -u 's/^/    /' >&2) &
HELPER_PID=$!
wait "$HELPER_PID" || die "the fill helper failed (see $WORK/out/fill.log)"
HELPER_PID=""
grep '^{"records"' "$WORK/out/fill.out" | tail -n 1 >"$WORK/out/fill.json" || true
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
sys.exit(0 if d["records"] == int(sys.argv[2]) else "wrote %d records of %s" % (d["records"], sys.argv[2]))' \
  "$WORK/out/fill.json" "$FILL" || die "the fill helper's result is wrong ($WORK/out/fill.json)"
ROCKSDB_BYTES=0
for d in "${MOUNTPATHS[@]}"; do
  b="$(du -sb "$d/.granary/meta" | cut -f1)"
  log "    $d/.granary/meta: $b bytes"
  ROCKSDB_BYTES=$((ROCKSDB_BYTES + b))
done

# The listing's prefix: of all prefixes of the hot names, the one whose keys (hot names and their records) come
# closest to LIST_PREFIX_KEYS; the helper gave the i-th hot name FILL/HOT records (the first FILL%HOT one more).
read -r LIST_PREFIX LIST_EXPECTED < <(python3 - "$WORK/names.txt" "$FILL" "$LIST_PREFIX_KEYS" <<'EOF'
import math, sys
names = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
fill, want = int(sys.argv[2]), int(sys.argv[3])
per, extra = divmod(fill, len(names))
counts = {}
for i, n in enumerate(names):
    keys = 1 + per + (1 if i < extra else 0)
    for l in range(1, len(n) + 1):
        counts[n[:l]] = counts.get(n[:l], 0) + keys
best = min(counts.items(), key=lambda kv: (abs(math.log(kv[1] / want)), len(kv[0])))
print(best[0], best[1])
EOF
)
[[ -n "$LIST_PREFIX" && "$LIST_PREFIX" != *[[:space:]]* ]] || die "no listing prefix found"
log "listing prefix '$LIST_PREFIX' holds $LIST_EXPECTED keys (LIST_PREFIX_KEYS $LIST_PREFIX_KEYS)"

# ------------------------------------------------------------------------------------------------ filled
log "filled: $((HOT + FILL)) objects' metadata; restart over the data$([[ -z "$CG" ]] || echo " in the cgroup ($MEM_LIMIT)")"
drop_caches
start_cluster filled
snap "$WORK/out/filled-up.snap"
measure filled

log "filled: listing prefix '$LIST_PREFIX' through the proxy, $LIST_PAGE keys a page"
snap "$WORK/out/list-before.snap"
python3 - "$GRANARY_PORT" "$BUCKET" "$LIST_PREFIX" "$LIST_PAGE" "$LIST_EXPECTED" >"$WORK/out/list.json" <<'EOF' \
  || die "the listing failed"
import http.client, json, sys, time, urllib.parse
port, bucket, prefix, limit, expected = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
keys, pages, token, last = 0, 0, None, None
c0, t0 = time.process_time(), time.monotonic()
while True:
    q = {"prefix": prefix, "limit": limit}
    if token:
        q["token"] = token
    conn.request("GET", "/v1/buckets/%s?%s" % (bucket, urllib.parse.urlencode(q)))
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("listing page %d answered %d: %s" % (pages + 1, r.status, body[:300]))
    page = json.loads(body)
    entries = page.get("entries", [])
    for e in entries:
        if last is not None and e["name"] <= last:
            sys.exit("listing out of order: %r after %r" % (e["name"], last))
        last = e["name"]
    keys += len(entries)
    pages += 1
    token = page.get("token")
    if not token:
        break
secs = time.monotonic() - t0
if keys != expected:
    sys.exit("the listing of prefix %r gave %d keys, expected %d" % (prefix, keys, expected))
print(json.dumps({"keys": keys, "pages": pages, "seconds": round(secs, 3), "keys_per_s": round(keys / secs),
                  "client_cpu_s": round(time.process_time() - c0, 2)}))
print("    listed %d keys in %d pages in %.2fs (%.0f keys/s)" % (keys, pages, secs, keys / secs), file=sys.stderr)
EOF
snap "$WORK/out/list-after.snap"
LOADAVG_END="$(cut -d' ' -f1-3 /proc/loadavg)"
stop_cluster

# ------------------------------------------------------------------------------------------------ report
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/fill-$stamp.json"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"
export BENCH_DIR="$here" BENCH_WORK="$WORK" BENCH_STAMP="$stamp" BENCH_GIT="$git_rev${git_dirty:+-dirty}" \
  BENCH_JAVA="$(java -version 2>&1 | sed -n 1p)" BENCH_LOAD0="$LOADAVG_START" BENCH_LOAD1="$LOADAVG_END" \
  BENCH_SECS="$(($(date +%s) - T0))" BENCH_TCK="$CLK_TCK" BENCH_ROCKSDB="$ROCKSDB_BYTES" \
  BENCH_PREFIX="$LIST_PREFIX" BENCH_MOUNTPATHS="${#MOUNTPATHS[@]}" BENCH_SIZE_BYTES="$SIZE_BYTES" \
  BENCH_MEM_LIMIT_BYTES="$MEM_LIMIT_BYTES" BENCH_CG="${CG:-}" \
  HOT SIZE FILL WORKERS DURATION WARMUP MEM_LIMIT DROP_CACHES LIST_PREFIX_KEYS LIST_PAGE FILL_THREADS GRANARY_ARGS \
  GRANARY_JAVA_OPTS START_TIMEOUT BUCKET
python3 - >"$result_file" <<'EOF'
import json, os, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
W, TCK = E["BENCH_WORK"], int(E["BENCH_TCK"])
OUT = os.path.join(W, "out")

def load(name):
    return json.load(open(os.path.join(OUT, name)))

def snap(name):
    return load(name + ".snap")

def mib(b):
    return round(b / 2**20, 1) if b is not None else None

def window(before, after, requests=None):
    """What happened between two snapshots: target CPU, storage reads, machine iowait, the cgroup's memory."""
    a, b = snap(before), snap(after)
    secs = b["t"] - a["t"]
    cpu = (b["ticks"] - a["ticks"]) / TCK
    d = [y - x for x, y in zip(a["cpu"], b["cpu"])]
    total = sum(d) or 1
    out = {"seconds": round(secs, 2), "target_cpu_s": round(cpu, 2),
           "target_cpu_pct_of_core": round(100 * cpu / secs, 1) if secs else None,
           "target_read_mib": mib(b["read_bytes"] - a["read_bytes"]),
           "target_major_faults": b["majflt"] - a["majflt"],
           "machine_iowait_pct": round(100 * d[4] / total, 2),
           "machine_busy_pct": round(100 * (total - d[3] - d[4]) / total, 1)}
    if requests:
        out["target_cpu_us_per_get"] = round(1e6 * cpu / requests, 1)
        # bytes the target read through system calls (read, pread, sendfile: page cache hits too), per GET
        out["target_syscall_read_kib_per_get"] = round((b["rchar"] - a["rchar"]) / requests / 1024, 1)
    else:
        out["target_syscall_read_mib"] = mib(b["rchar"] - a["rchar"])
    if "cg" in b:
        out["cgroup"] = {"cache_mib": mib(b["cg"]["cache"]), "rss_mib": mib(b["cg"]["rss"]),
                         "usage_mib": mib(b["cg"]["usage"]), "max_usage_mib": mib(b["cg"]["max_usage"]),
                         "failcnt": b["cg"]["failcnt"],
                         "major_faults": b["cg"]["pgmajfault"] - a["cg"]["pgmajfault"]}
    return out

def phase(name, objects):
    g = load(name + ".json")["get"]
    up = snap(name + "-up")
    after = snap(name + "-after")
    return {"objects": objects,
            "get_mib_s": round(g["throughput_bytes_per_sec"] / 2**20, 1),
            "get_req_s": round(g["ops_per_sec"], 1),
            "p50_ms": round(g["latency_us"]["p50"] / 1000, 3),
            "p90_ms": round(g["latency_us"]["p90"] / 1000, 3),
            "p99_ms": round(g["latency_us"]["p99"] / 1000, 3),
            "max_ms": round(g["latency_us"]["max"] / 1000, 3),
            "gets": g["count"], "errors": g["errors"],
            "target_rss_mib": round(after["rss_kb"] / 1024, 1),
            "target_rss_at_start_mib": round(up["rss_kb"] / 1024, 1),
            "startup_s": float(open(os.path.join(OUT, name + ".startup")).read()),
            # the target's own cost of starting, from its birth to "cluster is up"
            "startup_target_cpu_s": round(up["ticks"] / TCK, 2),
            "startup_target_read_mib": mib(up["read_bytes"]),
            "during_gets": window(name + "-before", name + "-after", g["count"]),
            "start_to_gets": window(name + "-up", name + "-before")}

def room(p):
    """Page cache the cgroup leaves for the metadata after the GETs of phase p: the limit less the processes' memory
    and less the page cache of the reference (jars, libraries, the hot objects: what the cluster reads anyway).
    None without a cgroup."""
    cg, base = snap(p + "-after").get("cg"), snap("reference-after").get("cg")
    limit = int(E["BENCH_MEM_LIMIT_BYTES"])
    return mib(limit - cg["rss"] - base["cache"]) if cg and base and limit else None

def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None

hot, fill = int(E["HOT"]), int(E["FILL"])
ref = phase("reference", hot)
filled = phase("filled", hot + fill)
f = load("fill.json")
lst = load("list.json")
filled |= {"rocksdb_bytes": int(E["BENCH_ROCKSDB"]),
           "rocksdb_bytes_per_record": round(int(E["BENCH_ROCKSDB"]) / (hot + fill), 1),
           "fill_records": f["records"], "fill_s": f["seconds"], "fill_records_per_s": f["records_per_s"],
           "fill_write_s": f["write_seconds"], "fill_settle_s": f["settle_seconds"],
           "fill_per_mountpath": f["per_mountpath"],
           "list_prefix": E["BENCH_PREFIX"], "list_keys": lst["keys"], "list_pages": lst["pages"],
           "list_s": lst["seconds"], "list_keys_per_s": lst["keys_per_s"], "list_client_cpu_s": lst["client_cpu_s"],
           "during_list": window("list-before", "list-after")}
for name, p in (("reference", ref), ("filled", filled)):
    p["page_cache_room_mib"] = room(name)
filled["metadata_fits_page_cache"] = (None if filled["page_cache_room_mib"] is None
                                      else filled["rocksdb_bytes"] / 2**20 <= filled["page_cache_room_mib"])
ratios = {"get_throughput": ratio(filled["get_mib_s"], ref["get_mib_s"]),
          "get_req_s": ratio(filled["get_req_s"], ref["get_req_s"]),
          "p50": ratio(filled["p50_ms"], ref["p50_ms"]),
          "p99": ratio(filled["p99_ms"], ref["p99_ms"]),
          "target_rss": ratio(filled["target_rss_mib"], ref["target_rss_mib"]),
          "startup": ratio(filled["startup_s"], ref["startup_s"])}
goals = {"get_throughput_min": 0.9, "p99_max": 2.0}
goals["get_throughput_met"] = ratios["get_throughput"] is not None and ratios["get_throughput"] >= 0.9
goals["p99_met"] = ratios["p99"] is not None and ratios["p99"] <= 2.0
goals["met"] = goals["get_throughput_met"] and goals["p99_met"]
doc = {
    "benchmark": "fill",
    "timestamp": E["BENCH_STAMP"],
    "machine": host_facts() | {"java": E["BENCH_JAVA"], "granary_git": E["BENCH_GIT"],
                               "loadavg_start": E["BENCH_LOAD0"], "loadavg_end": E["BENCH_LOAD1"]},
    "parameters": {"hot": hot, "size": E["SIZE"], "size_bytes": int(E["BENCH_SIZE_BYTES"]), "fill": fill,
                   "workers": int(E["WORKERS"]), "duration_s": int(E["DURATION"]), "warmup_s": int(E["WARMUP"]),
                   "mem_limit": E["MEM_LIMIT"], "mem_limit_bytes": int(E["BENCH_MEM_LIMIT_BYTES"]),
                   "cgroup": E["BENCH_CG"] or None, "drop_caches": E["DROP_CACHES"] == "1",
                   "list_prefix_keys": int(E["LIST_PREFIX_KEYS"]), "list_page": int(E["LIST_PAGE"]),
                   "fill_threads": int(E["FILL_THREADS"]), "targets": 1, "mountpaths": int(E["BENCH_MOUNTPATHS"]),
                   "granary_args": E["GRANARY_ARGS"].strip(), "launcher_java_opts": E["GRANARY_JAVA_OPTS"],
                   "start_timeout_s": int(E["START_TIMEOUT"]), "bucket": E["BUCKET"]},
    "method": "granary local with 1 target (2 mountpaths); HOT objects of SIZE PUT through the proxy by one loader "
              "worker, listed, GET-tested; the cluster stopped (SIGTERM) and restarted over its data inside a memory "
              "cgroup of MEM_LIMIT (launcher and nodes; page cache charged to it) after sync + drop_caches: start-up "
              "= launch to 'cluster is up'; WARMUP s then DURATION s of GETs of the hot names, granary load --direct "
              "(straight to the owning target, as after the native 307), WORKERS workers; target RSS = VmRSS after "
              "the GETs. Then, stopped, FILL records written offline into the target's metadata by "
              "io.granary.target.meta.MetaFill (ObjectStore.locate + MetaStore.publish per record, names H~J "
              "interleaved with the hot names H, records copying the hot records with random checksums; memtables "
              "flushed and compactions finished before it exits), and the same restart and GETs, then a paged "
              "listing (limit LIST_PAGE, token) through the proxy of the hot-name prefix whose key count is closest "
              "to LIST_PREFIX_KEYS. The loader and the listing client run outside the cgroup.",
    "reference": ref,
    "filled": filled,
    "ratios": ratios,
    "goals": goals,
    "seconds": int(E["BENCH_SECS"]),
}
print(json.dumps(doc, indent=2))
EOF
cat "$result_file"
log "results written to $result_file"
python3 - "$result_file" >&2 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r, f = d["reference"], d["filled"]
print("  %-10s %10s %9s %9s %8s %8s %9s %9s" % ("", "objects", "MiB/s", "req/s", "p50 ms", "p99 ms", "RSS MiB",
                                               "start s"))
for k, v in (("reference", r), ("filled", f)):
    print("  %-10s %10d %9.1f %9.1f %8.3f %8.3f %9.1f %9.2f" % (k, v["objects"], v["get_mib_s"], v["get_req_s"],
                                                               v["p50_ms"], v["p99_ms"], v["target_rss_mib"],
                                                               v["startup_s"]))
print("  RocksDB %.1f MiB (%.1f B/record); fill %d records/s; listing %d keys in %.1fs (%d keys/s)" % (
    f["rocksdb_bytes"] / 2**20, f["rocksdb_bytes_per_record"], f["fill_records_per_s"], f["list_keys"], f["list_s"],
    f["list_keys_per_s"]))
print("  page cache room beside the cluster: %s MiB; the metadata fits in it: %s" % (
    f["page_cache_room_mib"], f["metadata_fits_page_cache"]))
print("  ratios: %s" % d["ratios"])
print("  goals: %s" % d["goals"])
EOF
