#!/usr/bin/env bash
# Footprint: what a default `granary local` (1 proxy + TARGETS targets) holds in memory and burns in CPU when idle,
# and how far its memory grows under load and falls back after it (issue 21 item 5). Per node: RSS (VmRSS) and PSS
# (smaps_rollup), sampled every SAMPLE_SECS, and CPU (utime + stime) from /proc. The `granary local` launcher, which
# only supervises the nodes, is reported apart. Reference in the same run: nginx (bench/lib.sh start_nginx) serving
# files of the same names and sizes, idle over the same window, and under a GET load of the same duration and
# workers from the same loader (`granary load --protocol http`).
#
# Prints one JSON document on stdout and writes it to bench/results/footprint-<timestamp>.json. Progress goes to
# stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
TARGETS="${TARGETS:-3}"                  # targets of the local cluster (plus 1 proxy)
JVM_OPTS="${JVM_OPTS:-}"                 # extra JVM options for every node, e.g. "-XX:+UseSerialGC -Xmx256m"
NMT="${NMT:-0}"                          # 1: nodes run with -XX:NativeMemoryTracking=summary, jcmd summaries recorded
SETTLE_SECS="${SETTLE_SECS:-20}"         # after the cluster is up, before the idle window
IDLE_SECS="${IDLE_SECS:-30}"             # the idle window (Granary and nginx sampled together)
OBJECTS="${OBJECTS:-2000}"               # objects of the data set
MIN_SIZE="${MIN_SIZE:-64KiB}"            # their sizes: uniform between these
MAX_SIZE="${MAX_SIZE:-1MiB}"
LOAD_SECS="${LOAD_SECS:-30}"             # the timed load, on Granary and then on nginx
WORKERS="${WORKERS:-16}"                 # loader workers (the data set's PUTs too)
PCT_PUT="${PCT_PUT:-0}"                  # PUT share of Granary's timed load (nginx's is GET only)
AFTER_SECS="${AFTER_SECS:-20}"           # after each load: the window whose end gives the RSS "after"
SAMPLE_SECS="${SAMPLE_SECS:-1}"          # sampling period
GRANARY_ARGS="${GRANARY_ARGS:-}"         # extra arguments for `granary local`
# archive: a first start makes the class-data archive, and the measured start maps it, as every start of a user's
# cluster after its first does; off: the nodes run without one (--class-sharing=off), as before 2026-11-28
CLASS_SHARING="${CLASS_SHARING:-archive}"
# JVM options of the launcher (not the nodes); by default those ./granary gives `granary local` ("" for none)
GRANARY_JAVA_OPTS="${GRANARY_JAVA_OPTS--Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
START_TIMEOUT="${START_TIMEOUT:-180}"
BUILD="${BUILD:-auto}"                   # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                        # 1: keep the work dir (node logs, samples, loader output)
BUCKET="${BUCKET:-footprint}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[footprint %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[footprint] ERROR: %s\n' "$*" >&2; exit 1; }

for v in TARGETS NMT SETTLE_SECS IDLE_SECS OBJECTS LOAD_SECS WORKERS PCT_PUT AFTER_SECS SAMPLE_SECS START_TIMEOUT KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((TARGETS >= 1)) || die "TARGETS must be at least 1"
((IDLE_SECS >= 5 && LOAD_SECS >= 5)) || die "IDLE_SECS and LOAD_SECS must be at least 5"
((SAMPLE_SECS >= 1)) || die "SAMPLE_SECS must be at least 1"
((OBJECTS >= 1)) || die "OBJECTS must be at least 1"
((WORKERS >= 1 && WORKERS <= 256)) || die "WORKERS must be 1 to 256, got $WORKERS"
((PCT_PUT <= 100)) || die "PCT_PUT must be 0 to 100, got $PCT_PUT"
((NMT <= 1 && KEEP <= 1)) || die "NMT and KEEP must be 0 or 1"
for s in "$MIN_SIZE" "$MAX_SIZE"; do
  [[ "$s" =~ ^[0-9]+(KiB|MiB)$ ]] || die "MIN_SIZE and MAX_SIZE take sizes such as 64KiB or 1MiB, got '$s'"
done
[[ "$BUCKET" =~ ^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$ ]] || die "BUCKET must be 3-63 characters [a-z0-9._-], got '$BUCKET'"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"
for o in $JVM_OPTS; do
  [[ "$o" == -* ]] || die "JVM_OPTS takes JVM options (each starting with -), got '$o'"
done
[[ "$CLASS_SHARING" == archive || "$CLASS_SHARING" == off ]] \
  || die "CLASS_SHARING is archive or off, got '$CLASS_SHARING'"

# ------------------------------------------------------------------------------------------------ cleanup
WORK=""
NGINX_PID=""
GRANARY_PID=""
SAMPLER_PID=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [[ -z "$SAMPLER_PID" ]] || stop_pid "$SAMPLER_PID" TERM 5
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
install_missing "${need[@]}"
NGINX_BIN="$(nginx_bin)"
for t in curl python3 java pgrep; do
  command -v "$t" >/dev/null || die "required tool '$t' is missing"
done
if ((NMT)); then command -v jcmd >/dev/null || die "NMT=1 needs jcmd (the JDK's)"; fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-footprint.XXXXXX")"
chmod 755 "$WORK"
mkdir -p "$WORK/files" "$WORK/nginx" "$WORK/out" "$WORK/samples" "$WORK/nmt" "$results_dir"
LOADAVG_START="$(cut -d' ' -f1-3 /proc/loadavg)"
T0="$(date +%s)"

# ------------------------------------------------------------------------------------------------ sampler
# sample.py OUT STOPFILE PERIOD LABEL=PID...: one JSON line per period (and one last line once STOPFILE exists):
# {"t": monotonic seconds, "p": {LABEL: [VmRSS kB, Pss kB or null, utime+stime ticks, threads] or null if gone}}
cat >"$WORK/sample.py" <<'EOF'
import json, os, sys, time
out, stop, period = sys.argv[1], sys.argv[2], float(sys.argv[3])
procs = [a.split("=", 1) for a in sys.argv[4:]]

def read(pid):
    rss = threads = pss = None
    try:
        with open("/proc/%s/stat" % pid) as f:
            s = f.read()
        fields = s[s.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    try:
        with open("/proc/%s/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
                    break
    except OSError:
        pass
    return [rss, pss, ticks, threads]

with open(out, "a") as f:
    while True:
        last = os.path.exists(stop)
        t = time.monotonic()
        f.write(json.dumps({"t": round(t, 3), "p": {label: read(pid) for label, pid in procs}}) + "\n")
        f.flush()
        if last:
            break
        while time.monotonic() < t + period and not os.path.exists(stop):
            time.sleep(0.05)
EOF

# sample_start PHASE / sample_stop PHASE: sample every watched process (WATCH: LABEL=PID words) into
# $WORK/samples/PHASE.jsonl between the two calls
sample_start() {
  rm -f "$WORK/samples/$1.stop"
  python3 "$WORK/sample.py" "$WORK/samples/$1.jsonl" "$WORK/samples/$1.stop" "$SAMPLE_SECS" "${WATCH[@]}" &
  SAMPLER_PID=$!
}
sample_stop() {
  touch "$WORK/samples/$1.stop"
  wait "$SAMPLER_PID" || die "the sampler of phase $1 failed"
  SAMPLER_PID=""
}
# sample_for PHASE SECONDS
sample_for() {
  sample_start "$1"
  sleep "$2"
  sample_stop "$1"
}

# nmt_snapshot PHASE: with NMT=1, every node's `jcmd VM.native_memory summary` into $WORK/nmt/PHASE-ID.txt
nmt_snapshot() {
  ((NMT)) || return 0
  local id
  for id in "${NODE_IDS[@]}"; do
    jcmd "${NODE_PID[$id]}" VM.native_memory summary >"$WORK/nmt/$1-$id.txt" 2>&1 \
      || log "WARNING: jcmd VM.native_memory failed for $id (see $WORK/nmt/$1-$id.txt)"
  done
}


# ------------------------------------------------------------------------------------------------ nginx, granary
start_nginx "$NGINX_BIN" "$WORK/nginx" "$WORK/files"
NGINX_WORKERS="$(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
log "nginx up on $NGINX_URL (master pid $NGINX_PID, workers $NGINX_WORKERS)"

ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
GRANARY_PORT="$(free_ports $((TARGETS + 1)))"
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
for o in $JVM_OPTS; do GRANARY_ARGS+=" --jvm-opt=$o"; done
((NMT == 0)) || GRANARY_ARGS+=" --jvm-opt=-XX:NativeMemoryTracking=summary"
log "extra node JVM options: ${JVM_OPTS:-none}$( ((NMT == 0)) || echo ' + NMT summary')"
if [[ "$CLASS_SHARING" == archive ]]; then
  log "first start, not measured: it makes the nodes' class-data archive"
  CLASS_SHARING=auto start_granary_local
  for ((i = 0; i < 900; i++)); do
    compgen -G "$WORK/granary/class-sharing/nodes-*.jsa" >/dev/null && break
    sleep 0.2
  done
  compgen -G "$WORK/granary/class-sharing/nodes-*.jsa" >/dev/null \
    || die "no class-data archive in $WORK/granary/class-sharing within 180 s (see dump.log there)"
  stop_pid "$GRANARY_PID" TERM 60
  log "the measured start maps the archive"
  CLASS_SHARING=auto start_granary_local
else
  start_granary_local
fi

# The nodes: the launcher's children, each named by its --id; its JVM options are the words between java and -cp.
python3 - "$GRANARY_PID" $(pgrep -P "$GRANARY_PID") >"$WORK/nodes.json" <<'EOF' || die "cannot identify the node processes"
import json, sys
launcher, pids = sys.argv[1], sys.argv[2:]
def argv(pid):
    with open("/proc/%s/cmdline" % pid, "rb") as f:
        return [a.decode() for a in f.read().split(b"\0") if a]
nodes = {}
for pid in pids:
    a = argv(pid)
    if "--id" not in a or "-cp" not in a:
        continue
    main = a.index("-cp") + 2
    nodes[a[a.index("--id") + 1]] = {"pid": int(pid), "role": a[main + 1] if main + 1 < len(a) else None,
                                     "jvm_options": a[1:a.index("-cp")]}
la = argv(launcher)
print(json.dumps({"nodes": dict(sorted(nodes.items(), key=lambda kv: (kv[1]["role"] != "proxy", kv[0]))),
                  "launcher": {"pid": int(launcher), "jvm_options": la[1:la.index("-jar")] if "-jar" in la else []}}))
EOF
declare -A NODE_PID=()
NODE_IDS=()
while read -r id pid; do
  NODE_IDS+=("$id")
  NODE_PID[$id]="$pid"
done < <(python3 -c 'import json, sys
for k, v in json.load(open(sys.argv[1]))["nodes"].items(): print(k, v["pid"])' "$WORK/nodes.json")
((${#NODE_IDS[@]} == TARGETS + 1)) || die "found ${#NODE_IDS[@]} node processes (${NODE_IDS[*]}), expected $((TARGETS + 1))"
WATCH=("launcher=$GRANARY_PID")
for id in "${NODE_IDS[@]}"; do WATCH+=("node/$id=${NODE_PID[$id]}"); done
WATCH+=("nginx/master=$NGINX_PID")
i=0
for p in $NGINX_WORKERS; do i=$((i + 1)); WATCH+=("nginx/worker$i=$p"); done
log "nodes: $(for id in "${NODE_IDS[@]}"; do printf '%s=%s ' "$id" "${NODE_PID[$id]}"; done)"

# The JVM's own sizing for these options (heap, GC, threads, code cache), as the nodes got it
node_opts="$(python3 -c 'import json, sys
n = next(iter(json.load(open(sys.argv[1]))["nodes"].values()))
print(" ".join(o for o in n["jvm_options"] if "NativeMemoryTracking" not in o))' "$WORK/nodes.json")"
# shellcheck disable=SC2086 # a list of options
java $node_opts -XX:+PrintFlagsFinal -version >"$WORK/flags.txt" 2>/dev/null || log "WARNING: java -XX:+PrintFlagsFinal failed"

code="$(curl -s -o "$WORK/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/$BUCKET")"
[[ "$code" =~ ^2 ]] || { cat "$WORK/bucket.out" >&2; die "creating bucket $BUCKET answered HTTP $code"; }

# ------------------------------------------------------------------------------------------------ idle
log "settling ${SETTLE_SECS}s, then the idle window (${IDLE_SECS}s): the cluster and nginx, no requests"
sleep "$SETTLE_SECS"
sample_for idle "$IDLE_SECS"
nmt_snapshot idle

# ------------------------------------------------------------------------------------------------ load
log "PUT $OBJECTS objects of $MIN_SIZE-$MAX_SIZE through the proxy ($WORKERS workers)"
sample_start populate
load_run populate --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put 100 --max-puts "$OBJECTS" --duration 0 \
  --min-size "$MIN_SIZE" --max-size "$MAX_SIZE" --workers "$WORKERS" --seed 1
sample_stop populate
python3 - "$WORK/out/populate.json" "$OBJECTS" <<'EOF' || die "the data set is incomplete"
import json, sys
p = json.load(open(sys.argv[1]))["put"]
if p["count"] != int(sys.argv[2]):
    sys.exit("PUT %d of %s objects" % (p["count"], sys.argv[2]))
EOF

# The same names and sizes as files for nginx, from the bucket's listing
python3 - "$PROXY_URL" "$BUCKET" "$WORK/files" "$WORK/names.txt" <<'EOF' || die "listing the bucket or writing nginx's files failed"
import json, os, sys, urllib.parse, urllib.request
url, bucket, root, names_out = sys.argv[1:5]
entries, token = [], None
while True:
    q = "limit=10000" + ("&token=" + urllib.parse.quote(token) if token else "")
    page = json.load(urllib.request.urlopen("%s/v1/buckets/%s?%s" % (url, bucket, q), timeout=60))
    entries += page.get("entries", [])
    token = page.get("token")
    if not token:
        break
block = os.urandom(1 << 20)
with open(names_out, "w") as names:
    for e in entries:
        path = os.path.join(root, e["name"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        size, off = e["size"], len(e["name"]) % 4096
        with open(path, "wb") as f:
            while size > 0:
                chunk = block[off:off + size] if off + size <= len(block) else block[off:]
                f.write(chunk)
                size -= len(chunk)
                off = 0
        names.write(e["name"] + "\n")
print("listed %d objects, %.1f MiB" % (len(entries), sum(e["size"] for e in entries) / 2**20), file=sys.stderr)
EOF
chmod -R a+rX "$WORK/files"
[[ "$(wc -l <"$WORK/names.txt")" -ge "$OBJECTS" ]] || die "the listing has fewer than $OBJECTS objects"

log "Granary load: ${LOAD_SECS}s, $WORKERS workers, $PCT_PUT% PUT, GETs of the data set through the proxy (307)"
sample_start load
load_run load --endpoint "$PROXY_URL" --bucket "$BUCKET" --pct-put "$PCT_PUT" --names "$WORK/names.txt" \
  --duration "${LOAD_SECS}s" --min-size "$MIN_SIZE" --max-size "$MAX_SIZE" --workers "$WORKERS" --seed 2
sample_stop load
nmt_snapshot load
log "after the load: ${AFTER_SECS}s"
sample_for after "$AFTER_SECS"

log "nginx load: ${LOAD_SECS}s, $WORKERS workers, GETs of the same names and sizes (granary load --protocol http)"
find "$WORK/files" -type f -exec cat {} + >/dev/null # in the page cache, as Granary's just-written objects are
sample_start nginx_load
load_run nginx_load --protocol http --endpoint "$NGINX_URL" --names "$WORK/names.txt" --duration "${LOAD_SECS}s" \
  --workers "$WORKERS"
sample_stop nginx_load
log "after nginx's load: ${AFTER_SECS}s"
sample_for nginx_after "$AFTER_SECS"
LOADAVG_END="$(cut -d' ' -f1-3 /proc/loadavg)"

# ------------------------------------------------------------------------------------------------ report
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/footprint-$stamp.json"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"
export BENCH_DIR="$here" BENCH_WORK="$WORK" BENCH_STAMP="$stamp" BENCH_GIT="$git_rev${git_dirty:+-dirty}" \
  BENCH_JAVA="$(java -version 2>&1 | sed -n 1p)" BENCH_NGINX="$("$NGINX_BIN" -v 2>&1 | sed -n 1p)" \
  BENCH_LOAD0="$LOADAVG_START" BENCH_LOAD1="$LOADAVG_END" BENCH_SECS="$(($(date +%s) - T0))" BENCH_TCK="$CLK_TCK" \
  TARGETS JVM_OPTS CLASS_SHARING NMT SETTLE_SECS IDLE_SECS OBJECTS MIN_SIZE MAX_SIZE LOAD_SECS WORKERS PCT_PUT \
  AFTER_SECS SAMPLE_SECS GRANARY_ARGS GRANARY_JAVA_OPTS BUCKET
python3 - >"$result_file" <<'EOF'
import glob, json, os, re, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
W, TCK, MiB = E["BENCH_WORK"], int(E["BENCH_TCK"]), 1024.0  # samples are in kB (KiB)

def samples(phase):
    return [json.loads(l) for l in open(os.path.join(W, "samples", phase + ".jsonl")) if l.strip()]

def mib(kb):
    return round(kb / MiB, 1) if kb is not None else None

def group(ss, labels):
    """Per sample: the sums over the labels of RSS, PSS, ticks (None when a process was gone or PSS unreadable)."""
    out = []
    for s in ss:
        vals = [s["p"].get(l) for l in labels]
        if any(v is None for v in vals):
            out.append(None)
            continue
        pss = None if any(v[1] is None for v in vals) else sum(v[1] for v in vals)
        out.append({"t": s["t"], "rss": sum(v[0] for v in vals), "pss": pss, "ticks": sum(v[2] for v in vals),
                    "threads": sum(v[3] or 0 for v in vals)})
    return out

def stats(phase, labels):
    g = group(SAMPLES[phase], labels)
    ok = [x for x in g if x]
    if len(ok) < 2:
        return {"missing": True}
    a, b = ok[0], ok[-1]
    secs = b["t"] - a["t"]
    cpu_s = (b["ticks"] - a["ticks"]) / TCK
    return {"rss_end": b["rss"], "pss_end": b["pss"], "rss_peak": max(x["rss"] for x in ok),
            "rss_min": min(x["rss"] for x in ok), "cpu_s": round(cpu_s, 2), "seconds": round(secs, 1),
            "cpu_pct_of_core": round(100 * cpu_s / secs, 3) if secs else None, "cpu_ticks": b["ticks"] - a["ticks"],
            "threads": b["threads"],
            "gone_samples": len(g) - len(ok)}

def idle(s):
    return {"rss_mib": mib(s["rss_end"]), "pss_mib": mib(s["pss_end"]), "cpu_pct_of_core": s["cpu_pct_of_core"],
            "cpu_ticks": s["cpu_ticks"], "rss_min_mib": mib(s["rss_min"]), "rss_max_mib": mib(s["rss_peak"]),
            "threads": s["threads"],
            "window_s": s["seconds"]}

def load(s):
    return {"rss_peak_mib": mib(s["rss_peak"]), "rss_end_mib": mib(s["rss_end"]), "pss_end_mib": mib(s["pss_end"]),
            "cpu_s": s["cpu_s"], "cpu_pct_of_core": s["cpu_pct_of_core"], "threads_end": s["threads"],
            "seconds": s["seconds"]}

def after(s):
    return {"rss_mib": mib(s["rss_end"]), "pss_mib": mib(s["pss_end"]), "cpu_pct_of_core": s["cpu_pct_of_core"],
            "window_s": s["seconds"]}

SAMPLES = {p: samples(p) for p in ("idle", "populate", "load", "after", "nginx_load", "nginx_after")}
info = json.load(open(os.path.join(W, "nodes.json")))
labels = list(SAMPLES["idle"][0]["p"].keys())
node_labels = [l for l in labels if l.startswith("node/")]
nginx_labels = [l for l in labels if l.startswith("nginx/")]

def phases(ls, nginx=False):
    if nginx:
        return {"idle": idle(stats("idle", ls)), "load": load(stats("nginx_load", ls)),
                "after": after(stats("nginx_after", ls))}
    return {"idle": idle(stats("idle", ls)), "populate": load(stats("populate", ls)), "load": load(stats("load", ls)),
            "after": after(stats("after", ls))}

# NMT (NMT=1): committed MiB per category, per node and phase
def nmt(path):
    try:
        text = open(path).read()
    except OSError:
        return None
    out = {}
    m = re.search(r"Total: reserved=(\d+)KB, committed=(\d+)KB", text)
    if m:
        out["total"] = round(int(m.group(2)) / 1024, 1)
    for name, committed in re.findall(r"-\s+([A-Za-z][A-Za-z ]*?) \(reserved=\d+KB, committed=(\d+)KB\)", text):
        out[name.strip()] = round(int(committed) / 1024, 1)
    return out or {"error": text.strip()[:300]}

nodes = {}
for nid, n in info["nodes"].items():
    d = {"role": n["role"], "pid": n["pid"], "jvm_options": n["jvm_options"]} | phases(["node/" + nid])
    if E["NMT"] == "1":
        d["nmt_committed_mib"] = {p: nmt(os.path.join(W, "nmt", "%s-%s.txt" % (p, nid))) for p in ("idle", "load")}
    nodes[nid] = d
cluster = phases(node_labels)
nginx = {"processes": len(nginx_labels)} | phases(nginx_labels, nginx=True)
launcher = {"pid": info["launcher"]["pid"], "jvm_options": info["launcher"]["jvm_options"]} | phases(["launcher"])

def loader(name):
    d = json.load(open(os.path.join(W, "out", name + ".json")))
    out = {"duration_s": d["duration_s"], "workers": d["workers"], "protocol": d["protocol"]}
    for op in ("get", "put"):
        o = d.get(op)
        if o and o["count"]:
            out[op] = {"count": o["count"], "errors": o["errors"], "mib_per_sec": round(o["throughput_bytes_per_sec"] / 2**20, 1),
                       "ops_per_sec": round(o["ops_per_sec"], 1), "p50_us": o["latency_us"]["p50"],
                       "p99_us": o["latency_us"]["p99"]}
    return out

flags = {}
wanted = {"MaxHeapSize", "InitialHeapSize", "MaxDirectMemorySize", "UseG1GC", "UseSerialGC", "UseParallelGC",
          "UseZGC", "UseShenandoahGC", "ParallelGCThreads", "ConcGCThreads", "CICompilerCount",
          "ReservedCodeCacheSize", "MaxMetaspaceSize", "ThreadStackSize", "ActiveProcessorCount", "MaxRAM"}
try:
    for line in open(os.path.join(W, "flags.txt")):
        f = line.split()
        if len(f) >= 4 and f[1] in wanted:
            v = f[3]
            flags[f[1]] = v == "true" if v in ("true", "false") else int(v) if re.fullmatch(r"-?\d+", v) else v
except OSError:
    pass

def cgroup_limit():
    for p in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            v = open(p).read().strip()
            return None if v == "max" or int(v) >= 1 << 60 else int(v)
        except (OSError, ValueError):
            continue
    return None

def ratio(a, b):
    return round(a / b, 2) if a is not None and b else None

ci, ni = cluster["idle"], nginx["idle"]
doc = {
    "benchmark": "footprint",
    "timestamp": E["BENCH_STAMP"],
    "machine": host_facts() | {"java": E["BENCH_JAVA"], "nginx": E["BENCH_NGINX"], "granary_git": E["BENCH_GIT"],
                               "cgroup_memory_limit_bytes": cgroup_limit(), "loadavg_start": E["BENCH_LOAD0"],
                               "loadavg_end": E["BENCH_LOAD1"]},
    "parameters": {"targets": int(E["TARGETS"]), "jvm_opts": E["JVM_OPTS"], "class_sharing": E["CLASS_SHARING"],
                   "nmt": E["NMT"] == "1",
                   "settle_s": int(E["SETTLE_SECS"]), "idle_s": int(E["IDLE_SECS"]), "objects": int(E["OBJECTS"]),
                   "min_size": E["MIN_SIZE"], "max_size": E["MAX_SIZE"], "load_s": int(E["LOAD_SECS"]),
                   "workers": int(E["WORKERS"]), "pct_put": int(E["PCT_PUT"]), "after_s": int(E["AFTER_SECS"]),
                   "sample_s": int(E["SAMPLE_SECS"]), "granary_args": E["GRANARY_ARGS"].strip(),
                   "launcher_java_opts": E["GRANARY_JAVA_OPTS"], "bucket": E["BUCKET"]},
    "method": "a granary local (1 proxy + TARGETS targets; CLASS_SHARING=archive: started once before, unmeasured, "
              "so that its nodes map the class-data archive that start made) and nginx (bench/lib.sh start_nginx) sampled together "
              "over the idle window after SETTLE s; then OBJECTS objects PUT through the proxy (populate), the same "
              "names and sizes written as files for nginx, a LOAD s load of WORKERS loader workers on Granary "
              "(native, through the 307; PCT_PUT % PUTs), AFTER s of quiet, the same GET load on nginx "
              "(granary load --protocol http), AFTER s of quiet. RSS = VmRSS, PSS = smaps_rollup Pss (shared pages "
              "split between their users), both read every SAMPLE s; CPU = utime+stime. Cluster = sum of the nodes "
              "(launcher apart); a peak of a sum is the largest per-sample sum.",
    "nodes": nodes,
    "cluster": cluster,
    "launcher": launcher,
    "nginx": nginx,
    "loader": {"populate": loader("populate"), "granary_load": loader("load"), "nginx_load": loader("nginx_load")},
    "ratios_cluster_to_nginx": {
        "idle_rss": ratio(ci["rss_mib"], ni["rss_mib"]),
        "idle_pss": ratio(ci["pss_mib"], ni["pss_mib"]),
        "idle_cpu": ratio(ci["cpu_pct_of_core"], ni["cpu_pct_of_core"]),
        "load_rss_peak": ratio(cluster["load"]["rss_peak_mib"], nginx["load"]["rss_peak_mib"]),
        "after_rss": ratio(cluster["after"]["rss_mib"], nginx["after"]["rss_mib"]),
    },
    "node_jvm_flags": flags,
    "issue_21_figures": {"note": "quoted from issue 21 item 5, not measured by this run",
                         "granary_1_proxy_3_targets": {"rss_mib": 1000, "cpu_pct_of_core": 0.9},
                         "aistore_4_nodes": {"rss_mib": 230, "cpu_pct_of_core": 0.15}},
    "seconds": int(E["BENCH_SECS"]),
}
print(json.dumps(doc, indent=2))
EOF
cat "$result_file"
log "results written to $result_file"
python3 - "$result_file" >&2 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("  %-9s %9s %9s %8s %12s %11s %9s" % ("", "idle RSS", "idle PSS", "idle CPU", "load peak", "load CPU-s", "after"))
rows = [(k, v) for k, v in d["nodes"].items()] + [("cluster", d["cluster"]), ("launcher", d["launcher"]),
                                                  ("nginx", d["nginx"])]
for k, v in rows:
    print("  %-9s %8.1fM %8.1fM %7.2f%% %11.1fM %11.1f %8.1fM" % (
        k, v["idle"]["rss_mib"], v["idle"]["pss_mib"] or 0, v["idle"]["cpu_pct_of_core"], v["load"]["rss_peak_mib"],
        v["load"]["cpu_s"], v["after"]["rss_mib"]))
l = d["loader"]
print("  loader: Granary GET %s MiB/s, nginx GET %s MiB/s; data set PUT %s MiB/s" % (
    l["granary_load"].get("get", {}).get("mib_per_sec"), l["nginx_load"].get("get", {}).get("mib_per_sec"),
    l["populate"].get("put", {}).get("mib_per_sec")))
print("  cluster/nginx: %s" % d["ratios_cluster_to_nginx"])
EOF
