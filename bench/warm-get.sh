#!/usr/bin/env bash
# Warm-GET benchmark: Granary target (direct GET, zero-copy sendfile) vs nginx (sendfile) serving the same files
# from the page cache, for three object sizes and several concurrencies, measured with wrk.
#
# Prints one JSON document on stdout and writes it to bench/results/warm-get-<timestamp>.json.
# Progress goes to stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
COUNT_150K="${COUNT_150K:-64}"          # number of 150 KiB files
COUNT_1M="${COUNT_1M:-32}"              # number of 1 MiB files
COUNT_10M="${COUNT_10M:-8}"             # number of 10 MiB files
CONCURRENCY="${CONCURRENCY:-1 8 32 128}" # wrk connections, one timed run per value, size and server
DURATION="${DURATION:-10}"              # seconds per timed run
WARMUP="${WARMUP:-8}"                   # seconds of wrk warm-up per size and server (0 disables); JIT needs it
WARMUP_CONNECTIONS="${WARMUP_CONNECTIONS:-8}"
MAX_THREADS="${MAX_THREADS:-2}"         # wrk threads = min(MAX_THREADS, connections)
WRK_TIMEOUT="${WRK_TIMEOUT:-30s}"       # wrk per-request timeout (its default 2s is short for 10 MiB at c=128)
TARGETS="${TARGETS:-1}"                 # Granary targets; 1 compares one server against one server
GRANARY_ARGS="${GRANARY_ARGS:-}"        # extra arguments for `granary local`, e.g. "--jvm-opt=-Xmx1g"
START_TIMEOUT="${START_TIMEOUT:-180}"   # seconds to wait for the local cluster
BUILD="${BUILD:-auto}"                  # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                       # 1: keep the temporary work dir (files, logs, wrk output)
BUCKET="${BUCKET:-bench}"
# What is measured: granary = a target's direct GET path (where a native 307 lands), s3 = the proxy's S3 API
# streaming through to the target (presigned SigV4 URLs, so every request is authenticated), redirect = the proxy's
# native 307 alone (the extra hop of the native path; wrk cannot follow it to another port), s3direct = S3 GETs
# presigned for the owning target, sent straight to it (a client that knows the map), nginx = the reference.
SERVERS="${SERVERS:-granary s3 s3direct redirect nginx}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[warm-get %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[warm-get] ERROR: %s\n' "$*" >&2; exit 1; }

for v in COUNT_150K COUNT_1M COUNT_10M DURATION WARMUP WARMUP_CONNECTIONS MAX_THREADS TARGETS START_TIMEOUT; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((DURATION >= 1)) || die "DURATION must be at least 1"
((TARGETS >= 1)) || die "TARGETS must be at least 1"
((MAX_THREADS >= 1)) || die "MAX_THREADS must be at least 1"
for c in $CONCURRENCY; do
  is_uint "$c" && ((c >= 1)) || die "CONCURRENCY values must be positive integers, got '$c'"
done
[[ -n "${CONCURRENCY// /}" ]] || die "CONCURRENCY is empty"
for s in $SERVERS; do
  [[ " granary s3 s3direct redirect nginx " == *" $s "* ]] \
    || die "unknown server '$s' in SERVERS (granary s3 s3direct redirect nginx)"
done
# every ratio is against these two
[[ " $SERVERS " == *" granary "* && " $SERVERS " == *" nginx "* ]] \
  || die "SERVERS must include granary and nginx, the references of every ratio (got '$SERVERS')"
((COUNT_150K + COUNT_1M + COUNT_10M > 0)) || die "all file counts are 0"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"

# label, bytes, count
SIZES=("150KiB $((150 * 1024)) $COUNT_150K" "1MiB $((1024 * 1024)) $COUNT_1M" "10MiB $((10 * 1024 * 1024)) $COUNT_10M")

# ------------------------------------------------------------------------------------------------ cleanup
WORK=""
NGINX_PID=""
GRANARY_PID=""
WRK_PID=""


# Our processes only: their command line mentions our work dir (another developer may run Granary too).

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n "$WRK_PID" ]] && kill -0 "$WRK_PID" 2>/dev/null; then
    kill -TERM "$WRK_PID" 2>/dev/null
    wait "$WRK_PID" 2>/dev/null
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
command -v wrk >/dev/null || need+=(wrk)
install_missing "${need[@]}"
NGINX_BIN="$(nginx_bin)"
WRK_BIN="$(command -v wrk)" || die "wrk not found after install"
for t in curl python3 java sha256sum head pgrep; do
  command -v "$t" >/dev/null || die "required tool '$t' is missing"
done


# ------------------------------------------------------------------------------------------------ work dir and files
WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-warm-get.XXXXXX")"
chmod 755 "$WORK"
FILES="$WORK/files"
mkdir -p "$FILES" "$WORK/wrk" "$WORK/nginx/tmp"
log "work dir $WORK"

declare -A NAMES=() # label -> space-separated object names
for s in "${SIZES[@]}"; do
  read -r label bytes count <<<"$s"
  names=""
  for ((i = 1; i <= count; i++)); do
    name="$(printf '%s-%04d.bin' "$label" "$i")"
    head -c "$bytes" /dev/urandom >"$FILES/$name"
    names+="$name "
  done
  NAMES[$label]="${names% }"
  ((count == 0)) || log "generated $count x $label"
done
chmod 644 "$FILES"/*

# ------------------------------------------------------------------------------------------------ nginx
start_nginx "$NGINX_BIN" "$WORK/nginx" "$FILES"
log "nginx up on $NGINX_URL (master pid $NGINX_PID)"

# ------------------------------------------------------------------------------------------------ granary
# Build if needed (BUILD=auto), then run a private copy of the distribution: another developer may rebuild
# cli/target while this runs (a jar rewritten under a running JVM breaks it).
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
GRANARY_PORT="$(free_ports $((TARGETS + 1)))"
# Targets serve only requests signed with the cluster secret; the benchmark signs its direct-to-target URLs with it.
GRANARY_CLUSTER_SECRET="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export GRANARY_CLUSTER_SECRET
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
start_granary_local
# The node JVMs, for CPU accounting: every path they are given lies under this run's work dir.
PROXY_PIDS="$(pgrep -f "GranaryCommand proxy .*$WORK/granary" | tr '\n' ' ')"
TARGET_PIDS="$(pgrep -f "GranaryCommand target .*$WORK/granary" | tr '\n' ' ')"
NGINX_PIDS="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
[[ -n "${PROXY_PIDS// /}" && -n "${TARGET_PIDS// /}" ]] \
  || log "WARNING: node processes not found (proxy '$PROXY_PIDS', targets '$TARGET_PIDS'): no CPU figures"
S3_ACCESS_KEY="$(grep -o 'AWS_ACCESS_KEY_ID=[^ ]*' "$WORK/granary-local.out" | cut -d= -f2)"
S3_SECRET_KEY="$(grep -o 'AWS_SECRET_ACCESS_KEY=[^ ]*' "$WORK/granary-local.out" | cut -d= -f2)"
[[ -n "$S3_ACCESS_KEY" && -n "$S3_SECRET_KEY" ]] || die "granary local printed no S3 keys"

# ------------------------------------------------------------------------------------------------ load objects
code="$(curl -s -o "$WORK/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/$BUCKET")"
[[ "$code" =~ ^2 ]] || { cat "$WORK/bucket.out" >&2; die "creating bucket $BUCKET answered HTTP $code"; }

declare -A OWNER=() # object name -> owning target base URL
put_start=$(date +%s.%N)
nput=0
for s in "${SIZES[@]}"; do
  read -r label bytes count <<<"$s"
  for name in ${NAMES[$label]}; do
    code="$(curl -s -L -T "$FILES/$name" -o "$WORK/put.out" -w '%{http_code}' "$PROXY_URL/v1/objects/$BUCKET/$name")" \
      || die "PUT $name failed (curl exit $?)"
    [[ "$code" =~ ^2 ]] || { cat "$WORK/put.out" >&2; die "PUT $name answered HTTP $code"; }
    read -r code loc < <(curl -s -o /dev/null -w '%{http_code} %{redirect_url}\n' "$PROXY_URL/v1/objects/$BUCKET/$name")
    [[ "$code" == 307 ]] || die "proxy GET of $name answered HTTP $code, expected 307"
    [[ "$loc" =~ ^(http://[^/]+)(/.*)$ ]] || die "proxy GET of $name: unexpected Location '$loc'"
    [[ "${BASH_REMATCH[2]%%\?*}" == "/v1/objects/$BUCKET/$name" ]] \
      || die "proxy GET of $name redirects to path '${BASH_REMATCH[2]}', expected /v1/objects/$BUCKET/$name"
    OWNER[$name]="${BASH_REMATCH[1]}"
    nput=$((nput + 1))
  done
done
put_secs="$(python3 -c "import sys,time; print(round(time.time() - float(sys.argv[1]), 2))" "$put_start")"
log "PUT $nput objects through the proxy in ${put_secs}s and resolved their owners"

# The target path as a client lands on it after the native 307: signed with the cluster secret (2 h, like the
# proxy's own 5-minute redirect URLs but long enough for the whole run).
declare -A SIGNED=() # object name -> signed native path and query on its target
while IFS=$'\t' read -r name path; do
  SIGNED[$name]="$path"
done < <(python3 - "$BUCKET" ${NAMES[*]} <<'PY'
import base64, hashlib, hmac, os, sys, time
secret = os.environ["GRANARY_CLUSTER_SECRET"].encode()
bucket, names = sys.argv[1], sys.argv[2:]
expires = int(time.time()) + 7200
for n in names:
    uri = "/v1/objects/%s/%s?granary-expires=%d" % (bucket, n, expires)
    mac = hmac.new(secret, ("GET\n%s\n%d" % (uri, expires)).encode(), hashlib.sha256).digest()
    print(n + "\t" + uri + "&granary-signature=" + base64.urlsafe_b64encode(mac).decode().rstrip("="))
PY
)

declare -A PRESIGNED=() # object name -> presigned S3 path and query on the proxy
declare -A DIRECT=()    # object name -> presigned S3 path and query on its owning target (/s3/BUCKET/NAME)
if [[ " $SERVERS " == *" s3 "* || " $SERVERS " == *" s3direct "* ]]; then
  python3 -c 'import boto3' 2>/dev/null || python3 -m pip install -q boto3 >&2 || die "boto3 is needed to presign S3 URLs"
  while IFS=$'\t' read -r name path; do
    PRESIGNED[$name]="$path"
  done < <(python3 - "$PROXY_URL" "$S3_ACCESS_KEY" "$S3_SECRET_KEY" "$BUCKET" ${NAMES[*]} <<'PY'
import sys, boto3
from botocore.config import Config
from urllib.parse import urlsplit
url, ak, sk, bucket, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
s3 = boto3.client("s3", endpoint_url=url, aws_access_key_id=ak, aws_secret_access_key=sk, region_name="us-east-1",
                  config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
for n in names:
    u = urlsplit(s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": n}, ExpiresIn=7200))
    print(n + "\t" + u.path + "?" + u.query)
PY
  )
  log "presigned ${#PRESIGNED[@]} S3 GET URLs (SigV4, 2 h)"
  # For the owning target: its /s3 endpoint, signed for its host (the signature covers the Host header)
  while IFS=$'\t' read -r name path; do
    DIRECT[$name]="$path"
  done < <(python3 - "$S3_ACCESS_KEY" "$S3_SECRET_KEY" "$BUCKET" \
      $(for name in ${NAMES[*]}; do printf '%s=%s ' "$name" "${OWNER[$name]}"; done) <<'PY'
import sys, boto3
from botocore.config import Config
from urllib.parse import urlsplit
ak, sk, bucket = sys.argv[1], sys.argv[2], sys.argv[3]
clients = {}
for pair in sys.argv[4:]:
    n, owner = pair.split("=", 1)
    if owner not in clients:
        clients[owner] = boto3.client("s3", endpoint_url=owner + "/s3", aws_access_key_id=ak, aws_secret_access_key=sk,
                                      region_name="us-east-1",
                                      config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
    u = urlsplit(clients[owner].generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": n},
                                                       ExpiresIn=7200))
    print(n + "\t" + u.path + "?" + u.query)
PY
  )
  for name in ${NAMES[*]}; do break; done # the first object of any size
  code="$(curl -s -o "$WORK/s3check.out" -w '%{http_code}' "$PROXY_URL${PRESIGNED[$name]}")"
  [[ "$code" == 200 ]] || { cat "$WORK/s3check.out" >&2; die "S3 presigned GET of $name answered $code"; }
  cmp -s "$WORK/s3check.out" "$FILES/$name" || die "S3 GET of $name through the proxy returned different bytes"
  code="$(curl -s -o "$WORK/s3check.out" -w '%{http_code}' "${OWNER[$name]}${DIRECT[$name]}")"
  [[ "$code" == 200 ]] || { cat "$WORK/s3check.out" >&2; die "S3 presigned GET of $name from its target answered $code"; }
  cmp -s "$WORK/s3check.out" "$FILES/$name" || die "S3 GET of $name from its target returned different bytes"
fi

# ------------------------------------------------------------------------------------------------ correctness
for s in "${SIZES[@]}"; do
  read -r label bytes count <<<"$s"
  ((count > 0)) || continue
  name="${NAMES[$label]%% *}"
  want="$(sha "$FILES/$name")"
  for src in "granary ${OWNER[$name]}${SIGNED[$name]}" "nginx $NGINX_URL/$name"; do
    read -r who url <<<"$src"
    code="$(curl -s -o "$WORK/check.bin" -w '%{http_code}' "$url")" || die "GET $url failed (curl exit $?)"
    [[ "$code" == 200 ]] || die "correctness check: $who GET $url answered HTTP $code"
    got="$(sha "$WORK/check.bin")"
    [[ "$got" == "$want" ]] || die "correctness check: $who returned different bytes for $name (sha256 $got, want $want, size $(stat -c %s "$WORK/check.bin") vs $bytes)"
  done
  log "sha256 ok for $name from the target and from nginx"
done
rm -f "$WORK/check.bin"

# Keep-alive: two GETs in one curl run; the second needs no new connection if the first response kept it open.
keepalive() { # url -> "true" or "false"
  local n
  n="$(curl -s -o /dev/null -o /dev/null -w '%{num_connects}\n' "$1" "$1" | tail -n 1)"
  [[ "$n" == 0 ]] && echo true || echo false
}
first_name="${NAMES[1MiB]%% *}"
[[ -n "$first_name" ]] || first_name="$(ls "$FILES" | head -n 1)"
KA_GRANARY="$(keepalive "${OWNER[$first_name]}${SIGNED[$first_name]}")"
KA_NGINX="$(keepalive "$NGINX_URL/$first_name")"
[[ "$KA_GRANARY" == true ]] \
  || log "WARNING: the Granary target closed the connection after a GET (no keep-alive): wrk reconnects per request"
[[ "$KA_NGINX" == true ]] || log "WARNING: nginx closed the connection after a GET (no keep-alive)"
cat "$FILES"/* >/dev/null # source files into the page cache

# ------------------------------------------------------------------------------------------------ wrk
# run_wrk LUA BASEURL CONNECTIONS THREADS SECONDS OUTFILE
# Also sets RUN_CPU: JSON of the CPU seconds the run cost each party (wrk, proxy, targets, nginx).
run_wrk() {
  local lua="$1" url="$2" conns="$3" threads="$4" secs="$5" out="$6" rc=0
  local w0 w1 p0 t0 n0
  children_ticks >"$WORK/ticks.out"
  w0="$(<"$WORK/ticks.out")"
  # shellcheck disable=SC2086 # lists of pids
  p0="$(cpu_ticks $PROXY_PIDS)"; t0="$(cpu_ticks $TARGET_PIDS)"; n0="$(cpu_ticks $NGINX_PIDS)"
  "$WRK_BIN" -t "$threads" -c "$conns" -d "${secs}s" --timeout "$WRK_TIMEOUT" -s "$lua" "$url" >"$out" 2>&1 &
  WRK_PID=$!
  wait "$WRK_PID" || rc=$?
  WRK_PID=""
  children_ticks >"$WORK/ticks.out"
  w1="$(<"$WORK/ticks.out")"
  # shellcheck disable=SC2086
  RUN_CPU="$(printf '{"wrk":%s,"proxy":%s,"targets":%s,"nginx":%s}' \
    "$(python3 -c "print(round(($w1 - $w0) / $CLK_TCK, 3))")" \
    "$(python3 -c "print(round(($(cpu_ticks $PROXY_PIDS) - $p0) / $CLK_TCK, 3))")" \
    "$(python3 -c "print(round(($(cpu_ticks $TARGET_PIDS) - $t0) / $CLK_TCK, 3))")" \
    "$(python3 -c "print(round(($(cpu_ticks $NGINX_PIDS) - $n0) / $CLK_TCK, 3))")")"
  ((rc == 0)) || { cat "$out" >&2; die "wrk exited with status $rc ($url)"; }
  grep -q '^WRKJSON ' "$out" || { cat "$out" >&2; die "wrk printed no WRKJSON line ($url)"; }
}

RUNS="$WORK/runs.jsonl"
: >"$RUNS"
declare -A OWNERS_JSON=()
for s in "${SIZES[@]}"; do
  read -r label bytes count <<<"$s"
  ((count > 0)) || continue
  # Granary: one group per owning target, nginx: one group.
  declare -A by_target=()
  declare -A direct_by_target=()
  nginx_paths=""
  for name in ${NAMES[$label]}; do
    t="${OWNER[$name]}"
    by_target[$t]+="${SIGNED[$name]},"
    direct_by_target[$t]+="${DIRECT[$name]:-},"
    nginx_paths+="/$name,"
  done
  g_specs=()
  d_specs=()
  owners=""
  for t in "${!by_target[@]}"; do
    hp="${t#http://}"
    g_specs+=("${hp%:*}:${hp##*:}:${by_target[$t]%,}")
    d_specs+=("${hp%:*}:${hp##*:}:${direct_by_target[$t]%,}")
    owners+="\"$t\":$(tr ',' '\n' <<<"${by_target[$t]%,}" | wc -l),"
  done
  OWNERS_JSON[$label]="{${owners%,}}"
  groups=${#g_specs[@]}
  make_lua "$WORK/wrk/granary-$label.lua" "${g_specs[@]}"
  [[ " $SERVERS " != *" s3direct "* ]] || make_lua "$WORK/wrk/s3direct-$label.lua" "${d_specs[@]}"
  make_lua "$WORK/wrk/nginx-$label.lua" "127.0.0.1:$NGINX_PORT:${nginx_paths%,}"
  s3_paths=""
  native_paths=""
  for name in ${NAMES[$label]}; do
    s3_paths+="${PRESIGNED[$name]:-},"
    native_paths+="/v1/objects/$BUCKET/$name,"
  done
  [[ " $SERVERS " != *" s3 "* ]] || make_lua "$WORK/wrk/s3-$label.lua" "127.0.0.1:$GRANARY_PORT:${s3_paths%,}"
  make_lua "$WORK/wrk/redirect-$label.lua" "127.0.0.1:$GRANARY_PORT:${native_paths%,}"
  g_url="http://${g_specs[0]%%:*}:$(cut -d: -f2 <<<"${g_specs[0]}")"
  unset by_target direct_by_target

  if ((WARMUP > 0)); then
    wc_=$((WARMUP_CONNECTIONS > groups ? WARMUP_CONNECTIONS : groups))
    wt=$((MAX_THREADS < wc_ ? MAX_THREADS : wc_)); ((wt >= groups)) || wt=$groups
    log "$label: warm-up ${WARMUP}s per server (c=$wc_)"
    run_wrk "$WORK/wrk/granary-$label.lua" "$g_url" "$wc_" "$wt" "$WARMUP" "$WORK/wrk/warmup-granary-$label.out"
    run_wrk "$WORK/wrk/nginx-$label.lua" "$NGINX_URL" "$wc_" "$wt" "$WARMUP" "$WORK/wrk/warmup-nginx-$label.out"
    [[ " $SERVERS " != *" s3 "* ]] \
      || run_wrk "$WORK/wrk/s3-$label.lua" "$PROXY_URL" "$wc_" "$wt" "$WARMUP" "$WORK/wrk/warmup-s3-$label.out"
    [[ " $SERVERS " != *" s3direct "* ]] \
      || run_wrk "$WORK/wrk/s3direct-$label.lua" "$g_url" "$wc_" "$wt" "$WARMUP" "$WORK/wrk/warmup-s3direct-$label.out"
  fi
  for c in $CONCURRENCY; do
    for server in $SERVERS; do
      conns=$c
      threads=$((MAX_THREADS < c ? MAX_THREADS : c))
      url="$NGINX_URL"
      [[ "$server" == s3 || "$server" == redirect ]] && url="$PROXY_URL"
      if [[ "$server" == granary || "$server" == s3direct ]]; then
        url="$g_url"
        # every owning target needs at least one wrk thread (one thread talks to one address)
        ((threads >= groups)) || threads=$groups
        ((conns >= threads)) || conns=$threads
      fi
      out="$WORK/wrk/$server-$label-c$c.out"
      log "$label c=$c $server: ${DURATION}s, $threads thread(s), $conns connection(s)"
      run_wrk "$WORK/wrk/$server-$label.lua" "$url" "$conns" "$threads" "$DURATION" "$out"
      line="$(grep '^WRKJSON ' "$out" | sed -n 1p)"
      printf '{"size":"%s","bytes":%d,"concurrency":%d,"server":"%s","connections":%d,"threads":%d,"cpu_s":%s,"wrk":%s}\n' \
        "$label" "$bytes" "$c" "$server" "$conns" "$threads" "$RUN_CPU" "${line#WRKJSON }" >>"$RUNS"
      python3 - "$line" "$RUN_CPU" >&2 <<'EOF'
import json, sys
w = json.loads(sys.argv[1][len("WRKJSON "):])
cpu = json.loads(sys.argv[2])
s = w["duration_us"] / 1e6
err = sum(w["errors"].values())
per = "; ".join("%s %.0f" % (k, v / w["requests"] * 1e6) for k, v in cpu.items() if v > 0.05) if w["requests"] else ""
print("    %.0f req/s, %.1f MiB/s, p50 %.0f us, p99 %.0f us, errors %d; CPU us/request: %s"
      % (w["requests"] / s, w["bytes"] / s / 2**20, w["latency_us"]["p50"], w["latency_us"]["p99"], err, per))
EOF
    done
  done
done

# ------------------------------------------------------------------------------------------------ report
java_version="$(java -version 2>&1 | sed -n 1p)"
nginx_version="$("$NGINX_BIN" -v 2>&1 | sed -n 1p)"
wrk_version="$("$WRK_BIN" -v 2>&1 | sed -n 1p || true)"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"
owners_json="{"
for k in "${!OWNERS_JSON[@]}"; do owners_json+="\"$k\":${OWNERS_JSON[$k]},"; done
owners_json="${owners_json%,}}"
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/warm-get-$stamp.json"

export BENCH_RUNS="$RUNS" BENCH_OWNERS="$owners_json" BENCH_JAVA="$java_version" BENCH_NGINX="$nginx_version" \
  BENCH_DIR="$here" BENCH_WRK="$wrk_version" BENCH_GIT="$git_rev${git_dirty:+-dirty}" BENCH_STAMP="$stamp" BENCH_PUT_SECS="$put_secs" \
  BENCH_LOGS="$WORK/granary/logs" BENCH_NGINX_ERR="$WORK/nginx/error.log" BENCH_KA_G="$KA_GRANARY" \
  BENCH_KA_N="$KA_NGINX" \
  SERVERS COUNT_150K COUNT_1M COUNT_10M CONCURRENCY DURATION WARMUP WARMUP_CONNECTIONS MAX_THREADS WRK_TIMEOUT TARGETS \
  GRANARY_ARGS BUCKET
python3 - >"$result_file" <<'EOF'
import glob, json, os, re, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
runs = [json.loads(l) for l in open(E["BENCH_RUNS"]) if l.strip()]

def metrics(w, cpu):
    s = w["duration_us"] / 1e6
    n = w["requests"]
    return {
        # CPU time each party spent per request (user + system), from /proc: what a request costs the machine
        "cpu_us_per_request": {k: round(v / n * 1e6, 1) for k, v in cpu.items() if v > 0} if n else {},
        "req_per_sec": round(w["requests"] / s, 1),
        "bytes_per_sec": round(w["bytes"] / s),
        "p50_us": w["latency_us"]["p50"],
        "p99_us": w["latency_us"]["p99"],
        "mean_us": w["latency_us"]["mean"],
        "max_us": w["latency_us"]["max"],
        "requests": w["requests"],
        "errors": sum(w["errors"].values()),
        "error_detail": w["errors"],
    }

def ratio(a, b):
    return round(a / b, 3) if b else None

def cpu_ratio(reference, other):
    """The reference run's CPU per request over all parties ÷ the other's: the throughput ratio a machine whose
    cores every party shares reaches when saturated; steadier than the measured ratio on a busy machine."""
    a, b = sum(reference["cpu_us_per_request"].values()), sum(other["cpu_us_per_request"].values())
    return round(a / b, 3) if a and b else None

sizes = []
for r in runs:
    if r["size"] not in sizes:
        sizes.append(r["size"])
results = []
summary = {}
short = []
for size in sizes:
    per_c = {}
    for r in (r for r in runs if r["size"] == size):
        e = per_c.setdefault(r["concurrency"], {"size": size, "object_bytes": r["bytes"], "concurrency": r["concurrency"]})
        e[r["server"]] = metrics(r["wrk"], r.get("cpu_s", {})) | {"connections": r["connections"], "threads": r["threads"]}
    ratios = {}
    s3_ratios = {}
    s3_cpu_ratios = {}
    s3d_ratios = {}
    s3d_cpu_ratios = {}
    for c, e in sorted(per_c.items()):
        g, n, s3, s3d = e.get("granary"), e.get("nginx"), e.get("s3"), e.get("s3direct")
        for server, m in (("granary", g), ("nginx", n), ("s3", s3), ("s3direct", s3d)):
            if m is None:
                continue
            # each response must carry about the whole object; far fewer bytes mean redirects or error bodies
            # were timed (10% slack: wrk's byte count and its count of completed requests differ a little at the end)
            if m["requests"] and m["bytes_per_sec"] / m["req_per_sec"] < 0.9 * e["object_bytes"]:
                short.append("%s %s c=%d: %.0f bytes per response, object is %d"
                             % (server, size, c, m["bytes_per_sec"] / m["req_per_sec"], e["object_bytes"]))
        e["ratio_throughput"] = ratio(g["bytes_per_sec"], n["bytes_per_sec"])
        e["cpu_ratio_target_vs_nginx"] = cpu_ratio(n, g)
        e["ratio_req_per_sec"] = ratio(g["req_per_sec"], n["req_per_sec"])
        if s3:
            e["ratio_s3_vs_nginx"] = ratio(s3["bytes_per_sec"], n["bytes_per_sec"])
            e["ratio_s3_vs_target"] = ratio(s3["bytes_per_sec"], g["bytes_per_sec"])
            e["cpu_ratio_s3_vs_nginx"] = cpu_ratio(n, s3)
            s3_ratios[str(c)] = e["ratio_s3_vs_nginx"]
            s3_cpu_ratios[str(c)] = e["cpu_ratio_s3_vs_nginx"]
        if s3d:
            e["ratio_s3direct_vs_nginx"] = ratio(s3d["bytes_per_sec"], n["bytes_per_sec"])
            e["ratio_s3direct_vs_target"] = ratio(s3d["bytes_per_sec"], g["bytes_per_sec"])
            e["cpu_ratio_s3direct_vs_nginx"] = cpu_ratio(n, s3d)
            s3d_ratios[str(c)] = e["ratio_s3direct_vs_nginx"]
            s3d_cpu_ratios[str(c)] = e["cpu_ratio_s3direct_vs_nginx"]
        if e.get("redirect"):
            # The native path costs one 307 from the proxy, then the target's GET: per request, the redirect's
            # latency adds to the target's. Modelled closed-loop throughput at this concurrency:
            per_req_us = e["redirect"]["mean_us"] + g["mean_us"]
            e["native_redirect_model"] = {
                "redirect_req_per_sec": e["redirect"]["req_per_sec"],
                "redirect_p50_us": e["redirect"]["p50_us"],
                "bytes_per_sec": round(c / (per_req_us / 1e6) * e["object_bytes"]) if per_req_us else None,
            }
            e["native_redirect_model"]["ratio_vs_nginx"] = ratio(e["native_redirect_model"]["bytes_per_sec"],
                                                               n["bytes_per_sec"])
        ratios[str(c)] = e["ratio_throughput"]
        results.append(e)
    entries = [e for e in results if e["size"] == size]
    peak_g = max(e["granary"]["bytes_per_sec"] for e in entries)
    peak_n = max(e["nginx"]["bytes_per_sec"] for e in entries)
    vals = [v for v in ratios.values() if v is not None]
    summary[size] = {
        "ratio_per_concurrency": ratios,
        "ratio_best": max(vals) if vals else None,
        "ratio_worst": min(vals) if vals else None,
        "ratio_peak_vs_peak": ratio(peak_g, peak_n),
        "granary_peak_bytes_per_sec": peak_g,
        "nginx_peak_bytes_per_sec": peak_n,
        "s3_vs_nginx_per_concurrency": s3_ratios,
        "s3_vs_nginx_cpu_ratio_per_concurrency": s3_cpu_ratios,
        "s3_vs_nginx_peak_vs_peak": ratio(max((e["s3"]["bytes_per_sec"] for e in entries if e.get("s3")), default=0),
                                          peak_n),
        "s3direct_vs_nginx_per_concurrency": s3d_ratios,
        "s3direct_vs_nginx_cpu_ratio_per_concurrency": s3d_cpu_ratios,
    }

goal = 0.9
one = summary.get("1MiB")
summary_doc = {
    "goal_ratio_1MiB": goal,
    "ratio_1MiB": one,
    "meets_goal_1MiB_best": (one["ratio_best"] >= goal) if one and one["ratio_best"] is not None else None,
    "meets_goal_1MiB_all_concurrencies": (one["ratio_worst"] >= goal) if one and one["ratio_worst"] is not None else None,
    "by_size": summary,
    "goal_s3_vs_nginx": 0.7,
    "granary_errors": sum(e["granary"]["errors"] for e in results),
    "s3_errors": sum(e["s3"]["errors"] for e in results if e.get("s3")),
    "s3direct_errors": sum(e["s3direct"]["errors"] for e in results if e.get("s3direct")),
    "nginx_errors": sum(e["nginx"]["errors"] for e in results),
}

# Problems worth a look in the node logs (WARN/ERROR/exceptions), counted per log file.
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

conc = [int(c) for c in E["CONCURRENCY"].split()]
doc = {
    "benchmark": "warm-get",
    "timestamp": E["BENCH_STAMP"],
    "machine": {
        **host_facts(),
        "java": E["BENCH_JAVA"],
        "nginx": E["BENCH_NGINX"],
        "wrk": E["BENCH_WRK"],
        "granary_git": E["BENCH_GIT"],
    },
    "parameters": {
        "sizes": {"150KiB": 150 * 1024, "1MiB": 1 << 20, "10MiB": 10 << 20},
        "counts": {"150KiB": int(E["COUNT_150K"]), "1MiB": int(E["COUNT_1M"]), "10MiB": int(E["COUNT_10M"])},
        "concurrency": conc,
        "duration_s": int(E["DURATION"]),
        "warmup_s": int(E["WARMUP"]),
        "warmup_connections": int(E["WARMUP_CONNECTIONS"]),
        "wrk_threads": "min(%s, connections)" % E["MAX_THREADS"],
        "wrk_timeout": E["WRK_TIMEOUT"],
        "targets": int(E["TARGETS"]),
        "granary_args": E["GRANARY_ARGS"],
        "bucket": E["BUCKET"],
        "objects_per_target": {k: v for k, v in sorted(json.loads(E["BENCH_OWNERS"]).items(),
                                                      key=lambda kv: ["150KiB", "1MiB", "10MiB"].index(kv[0]))},
        "put_seconds_total": float(E["BENCH_PUT_SECS"]),
    },
    "results": results,
    "summary": summary_doc,
    "diagnostics": {
        "keepalive": {"granary": E["BENCH_KA_G"] == "true", "nginx": E["BENCH_KA_N"] == "true"},
        "short_responses": short,
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
for size, s in d["summary"]["by_size"].items():
    print("  %-7s target/nginx: per concurrency %s, peak-vs-peak %s; s3/nginx: %s, peak-vs-peak %s; "
          "s3 direct to the target/nginx: %s"
          % (size, s["ratio_per_concurrency"], s["ratio_peak_vs_peak"], s["s3_vs_nginx_per_concurrency"],
             s["s3_vs_nginx_peak_vs_peak"], s["s3direct_vs_nginx_per_concurrency"]))
EOF
