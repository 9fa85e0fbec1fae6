#!/usr/bin/env bash
# Cold-GET benchmark: objects of a remote S3 bucket (S3Proxy 4.1.0, filesystem backend, on this machine) read
# through a Granary cluster that has never seen them, against direct reads from the same S3Proxy with the same
# client (curl with SigV4). Measures throughput (all objects, several concurrencies, alternating rounds) and the
# time to first byte of one large cold object; a warm re-read through Granary is reported for context.
#
# Prints one JSON document on stdout and writes it to bench/results/cold-get-<timestamp>.json.
# Progress goes to stderr. See bench/README.md for the knobs and the JSON fields.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
COUNT="${COUNT:-16}"                   # objects for the throughput runs
SIZE_MIB="${SIZE_MIB:-64}"             # their size in MiB (objects over 64 MiB are fetched by parallel ranged reads)
TTFB_SIZE_MIB="${TTFB_SIZE_MIB:-256}"  # size of the time-to-first-byte object in MiB
CONCURRENCY="${CONCURRENCY:-1 4}"      # parallel GETs; one direct, one cold and one warm run per value and round
ROUNDS="${ROUNDS:-2}"                  # rounds of (direct, cold, warm) per concurrency; medians are reported
TTFB_REPS="${TTFB_REPS:-3}"            # repetitions of (direct, cold, warm) for the TTFB object
WARMUP="${WARMUP:-1}"                  # 1: one untimed direct + cold + warm pass first (the JVMs' JIT needs it)
WARMUP_SMALL="${WARMUP_SMALL:-1000}"   # with WARMUP: this many 4 KiB objects read cold first, so the cold path is JIT-compiled
LINK_MBIT="${LINK_MBIT:-0}"            # >0: S3Proxy's answers share a link of this many Mbit/s (tc htb on lo; needs root)
REMOTE_DELAY_MS="${REMOTE_DELAY_MS:-0}" # >0: the TTFB part reads S3Proxy (direct and cold) through a relay adding this latency
NGINX="${NGINX:-1}"                    # 1: also read through nginx as a caching proxy in front of the same S3Proxy (the reference)
TARGETS="${TARGETS:-1}"                # Granary targets
GRANARY_ARGS="${GRANARY_ARGS:-}"       # extra arguments for `granary local`, e.g. "--target-arg=--cold-threads=8"
S3PROXY_JVM_OPTS="${S3PROXY_JVM_OPTS:-}" # extra JVM options for S3Proxy, e.g. "-Xmx1g"
BUILD="${BUILD:-auto}"                 # auto: ./granary builds if sources changed; 0: use cli/target as it is
START_TIMEOUT="${START_TIMEOUT:-180}"  # seconds to wait for the local cluster (and for S3Proxy)
CURL_TIMEOUT="${CURL_TIMEOUT:-600}"    # curl --max-time per GET, seconds
KEEP="${KEEP:-0}"                      # 1: keep the temporary work dir (S3Proxy data, node logs, curl output)
BUCKET="${BUCKET:-bench}"
S3PROXY_VERSION=4.1.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[cold-get %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[cold-get] ERROR: %s\n' "$*" >&2; exit 1; }

for v in COUNT SIZE_MIB TTFB_SIZE_MIB ROUNDS TTFB_REPS WARMUP WARMUP_SMALL LINK_MBIT REMOTE_DELAY_MS NGINX TARGETS START_TIMEOUT CURL_TIMEOUT; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((COUNT >= 1)) || die "COUNT must be at least 1"
((SIZE_MIB >= 1 && TTFB_SIZE_MIB >= 1)) || die "SIZE_MIB and TTFB_SIZE_MIB must be at least 1"
((ROUNDS >= 1 && TTFB_REPS >= 1)) || die "ROUNDS and TTFB_REPS must be at least 1"
((TARGETS >= 1)) || die "TARGETS must be at least 1"
((NGINX <= 1)) || die "NGINX must be 0 or 1, got '$NGINX'"
for c in $CONCURRENCY; do
  is_uint "$c" && ((c >= 1)) || die "CONCURRENCY values must be positive integers, got '$c'"
done
[[ -n "${CONCURRENCY// /}" ]] || die "CONCURRENCY is empty"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"
[[ "$BUCKET" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] || die "BUCKET '$BUCKET' is not a valid S3 bucket name"
SIZE=$((SIZE_MIB << 20))
TTFB_SIZE=$((TTFB_SIZE_MIB << 20))
MAX_C=0
for c in $CONCURRENCY; do ((c <= MAX_C)) || MAX_C=$c; done
TTFB_KEY="ttfb-${TTFB_SIZE_MIB}MiB.bin"
PRELUDE_KEY="ttfb-prelude-4KiB.bin" # read cold just before the TTFB object: see the TTFB section below
KEYS=()
for ((i = 1; i <= COUNT; i++)); do KEYS+=("$(printf 'obj-%04d.bin' "$i")"); done

# ------------------------------------------------------------------------------------------------ cleanup
WORK=""
S3PROXY_PID=""
RELAY_PID=""
GRANARY_PID=""
NGINX_PID=""
XARGS_PID=""


# Our processes only: their command line mentions our work dir (another developer may run Granary or S3Proxy too).

stop_xargs() {
  [[ -n "$XARGS_PID" ]] || return 0
  if kill -0 "$XARGS_PID" 2>/dev/null; then
    local kids
    kids="$(pgrep -P "$XARGS_PID" 2>/dev/null || true)"
    kill -TERM "$XARGS_PID" 2>/dev/null || true
    for p in $kids; do kill -TERM "$p" 2>/dev/null || true; done
    wait "$XARGS_PID" 2>/dev/null || true
  fi
  XARGS_PID=""
}

# The remote link: S3Proxy's answers (source port = its port) go through an htb class of LINK_MBIT, as if the
# remote were across a network link of that bandwidth; everything else on lo (clients, proxy, targets, uploads to
# S3Proxy) stays unshaped. Only ever one shaping on lo: another one active is an error, never overwritten.
SHAPED=0
TC=(tc)
shape_link() { # port
  command -v tc >/dev/null || die "LINK_MBIT needs tc (Debian package iproute2)"
  ((EUID == 0)) || TC=(sudo -n tc)
  "${TC[@]}" qdisc show dev lo >/dev/null || die "LINK_MBIT needs root or password-less sudo (tc qdisc on lo)"
  if tc qdisc show dev lo | grep -q ' root ' && ! tc qdisc show dev lo | grep -q '^qdisc noqueue 0: root'; then
    die "lo already has a root qdisc ($(tc qdisc show dev lo | head -1)); not touching another run's shaping"
  fi
  "${TC[@]}" qdisc add dev lo root handle 1: htb default 10 r2q 1000 \
    || die "tc: cannot add an htb qdisc on lo (kernel without sch_htb?)"
  SHAPED=1
  "${TC[@]}" class add dev lo parent 1: classid 1:10 htb rate 30gbit burst 4m cburst 4m \
    && "${TC[@]}" class add dev lo parent 1: classid 1:20 htb rate "${LINK_MBIT}mbit" ceil "${LINK_MBIT}mbit" burst 1m cburst 1m \
    && "${TC[@]}" filter add dev lo parent 1: protocol ip prio 1 u32 match ip sport "$1" 0xffff flowid 1:20 \
    || die "tc: cannot set up the ${LINK_MBIT} Mbit/s class for port $1"
}
unshape_link() {
  ((SHAPED)) || return 0
  "${TC[@]}" qdisc del dev lo root 2>/dev/null || log "WARNING: could not remove the htb qdisc from lo (tc qdisc del dev lo root)"
  SHAPED=0
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  stop_xargs
  if [[ -n "$GRANARY_PID" ]] && kill -0 "$GRANARY_PID" 2>/dev/null; then
    log "stopping granary local (pid $GRANARY_PID)"
    stop_pid "$GRANARY_PID" TERM 60
  fi
  if [[ -n "$NGINX_PID" ]] && kill -0 "$NGINX_PID" 2>/dev/null; then
    stop_nginx "$NGINX_PID"
  fi
  unshape_link
  if [[ -n "$RELAY_PID" ]] && kill -0 "$RELAY_PID" 2>/dev/null; then
    stop_pid "$RELAY_PID" TERM 10
  fi
  if [[ -n "$S3PROXY_PID" ]] && kill -0 "$S3PROXY_PID" 2>/dev/null; then
    log "stopping S3Proxy (pid $S3PROXY_PID)"
    stop_pid "$S3PROXY_PID" TERM 20
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
((NGINX)) && nginx_missing && need+=(nginx)
install_missing "${need[@]}"
for t in curl python3 java sha256sum head pgrep xargs du; do
  command -v "$t" >/dev/null || die "required tool '$t' is missing"
done
curl --help all 2>/dev/null | grep -q -- '--aws-sigv4' || die "this curl has no --aws-sigv4 (needs curl 7.75 or later)"
NGINX_BIN=""
if ((NGINX)); then
  NGINX_BIN="$(nginx_bin)"
fi

now() { echo "$EPOCHREALTIME"; }
elapsed() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 6))" "$1" "$2"; }

CLK_TCK="$(getconf CLK_TCK)"
# children_ticks: user + system ticks of this shell's reaped children and their descendants (bash `times`, second
# line). `times` runs in this shell (a command substitution would report the subshell's children), into a file.
children_ticks() {
  local t
  times >"$WORK/times.out"
  t="$(sed -n 2p "$WORK/times.out")"
  python3 - "$t" "$CLK_TCK" <<'EOF'
import re, sys
secs = 0.0
for m, s in re.findall(r"(\d+)m([\d.]+)s", sys.argv[1]):
    secs += int(m) * 60 + float(s)
print(round(secs * int(sys.argv[2])))
EOF
}

# ------------------------------------------------------------------------------------------------ work dir
T_START="$(now)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-cold-get.XXXXXX")"
chmod 755 "$WORK"
mkdir -p "$WORK/s3data" "$WORK/granary" "$WORK/curl" "$WORK/src"
log "work dir $WORK"

# ------------------------------------------------------------------------------------------------ S3Proxy
S3PROXY_JAR="$HOME/.m2/repository/org/gaul/s3proxy/$S3PROXY_VERSION/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"
if [[ ! -f "$S3PROXY_JAR" ]]; then
  log "fetching org.gaul:s3proxy:$S3PROXY_VERSION:jar-with-dependencies with the Maven wrapper"
  (cd "$repo" && ./mvnw -q -B dependency:copy \
    "-Dartifact=org.gaul:s3proxy:$S3PROXY_VERSION:jar:jar-with-dependencies" "-DoutputDirectory=$WORK") >&2 \
    || die "could not fetch the S3Proxy jar"
  S3PROXY_JAR="$WORK/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"
  [[ -f "$S3PROXY_JAR" ]] || die "the Maven wrapper did not produce $S3PROXY_JAR"
fi
S3PROXY_PORT="$(free_ports 1)"
S3_URL="http://127.0.0.1:$S3PROXY_PORT"
S3_AK="granary-bench"
S3_SK="granary-bench-secret-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat >"$WORK/s3proxy.properties" <<EOF
s3proxy.endpoint=$S3_URL
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$S3_AK
s3proxy.credential=$S3_SK
s3proxy.ignore-unknown-headers=true
jclouds.provider=filesystem
jclouds.filesystem.basedir=$WORK/s3data
EOF
chmod 600 "$WORK/s3proxy.properties"
# shellcheck disable=SC2086 # S3PROXY_JVM_OPTS is a list of words on purpose
java $S3PROXY_JVM_OPTS -jar "$S3PROXY_JAR" --properties "$WORK/s3proxy.properties" >"$WORK/s3proxy.log" 2>&1 &
S3PROXY_PID=$!
for ((i = 0; ; i++)); do
  kill -0 "$S3PROXY_PID" 2>/dev/null || { tail -n 30 "$WORK/s3proxy.log" >&2; die "S3Proxy exited at startup"; }
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$S3_URL/healthz" 2>/dev/null || true)" == 200 ]] && break
  ((i < START_TIMEOUT * 5)) || die "S3Proxy not healthy on $S3_URL within ${START_TIMEOUT}s (see $WORK/s3proxy.log)"
  sleep 0.2
done
log "S3Proxy $S3PROXY_VERSION up on $S3_URL (pid $S3PROXY_PID), data in $WORK/s3data"
if ((LINK_MBIT > 0)); then
  shape_link "$S3PROXY_PORT"
  log "S3Proxy's answers share a ${LINK_MBIT} Mbit/s link (tc htb on lo, source port $S3PROXY_PORT)"
fi
# REMOTE_URL is where Granary's bucket points and direct reads go: S3Proxy itself, and for the TTFB part with
# REMOTE_DELAY_MS a relay in front of it that holds each answer back by that long (bench/delay-relay.py).
REMOTE_URL="$S3_URL"
RELAY_URL=""
if ((REMOTE_DELAY_MS > 0)); then
  RELAY_PORT="$(free_ports 1)"
  python3 "$here/delay-relay.py" "$RELAY_PORT" 127.0.0.1 "$S3PROXY_PORT" "$REMOTE_DELAY_MS" >"$WORK/relay.log" 2>&1 &
  RELAY_PID=$!
  RELAY_URL="http://127.0.0.1:$RELAY_PORT"
  for ((i = 0; ; i++)); do
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "$RELAY_URL/healthz" 2>/dev/null || true)" == 200 ]] && break
    ((i < 50)) || die "the delay relay on $RELAY_URL did not answer (see $WORK/relay.log)"
    sleep 0.2
  done
  log "TTFB reads go through a relay adding ${REMOTE_DELAY_MS} ms to each answer from S3Proxy ($RELAY_URL)"
fi
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_AK" "$S3_SK" >"$WORK/credentials"
chmod 600 "$WORK/credentials"

# The one client, for S3Proxy and Granary alike: curl signing with SigV4. curl does not send x-amz-content-sha256
# by itself and both servers want it; given the header, curl signs it as the payload hash.
s3curl() { # user base url-path [curl args...]
  local user="$1" url="$2"
  shift 2
  curl -s --max-time "$CURL_TIMEOUT" --aws-sigv4 "aws:amz:us-east-1:s3" --user "$user" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@" "$url"
}

code="$(s3curl "$S3_AK:$S3_SK" "$S3_URL/$BUCKET" -X PUT -o "$WORK/curl/mb.out" -w '%{http_code}')" || true
[[ "$code" == 200 ]] || { cat "$WORK/curl/mb.out" >&2; die "creating bucket $BUCKET on S3Proxy answered HTTP $code"; }

# ------------------------------------------------------------------------------------------------ objects
declare -A SHA=() # key -> sha256 of its content
upload_start="$(now)"
upload_one() { # key bytes
  local key="$1" bytes="$2" f="$WORK/src/$1" code
  head -c "$bytes" /dev/urandom >"$f"
  SHA[$key]="$(sha "$f")"
  code="$(s3curl "$S3_AK:$S3_SK" "$S3_URL/$BUCKET/$key" -T "$f" -o "$WORK/curl/put.out" -w '%{http_code}')" \
    || die "PUT $key to S3Proxy failed (curl exit $?)"
  [[ "$code" == 200 ]] || { cat "$WORK/curl/put.out" >&2; die "PUT $key to S3Proxy answered HTTP $code"; }
  rm -f "$f" # S3Proxy keeps its own copy; the sha256 is enough from here on
}
for key in "${KEYS[@]}"; do upload_one "$key" "$SIZE"; done
upload_one "$TTFB_KEY" "$TTFB_SIZE"
upload_one "$PRELUDE_KEY" 4096
if ((WARMUP && WARMUP_SMALL > 0)); then
  head -c 4096 /dev/urandom >"$WORK/small.bin"
  for ((i = 0; i < WARMUP_SMALL; i++)); do
    code="$(s3curl "$S3_AK:$S3_SK" "$S3_URL/$BUCKET/jit/$i" -T "$WORK/small.bin" -o /dev/null -w '%{http_code}')" \
      || die "PUT jit/$i to S3Proxy failed"
    [[ "$code" == 200 ]] || die "PUT jit/$i to S3Proxy answered HTTP $code"
  done
fi
upload_secs="$(elapsed "$upload_start" "$(now)")"
log "uploaded $COUNT x ${SIZE_MIB} MiB, 1 x ${TTFB_SIZE_MIB} MiB and $((WARMUP ? WARMUP_SMALL : 0)) x 4 KiB to S3Proxy in ${upload_secs}s"

# ------------------------------------------------------------------------------------------------ granary
# Build if needed, then run a private copy of the distribution: other people may rebuild cli/target while this runs
# (a jar rewritten under a running JVM breaks it), and the copy's path marks this run's processes.
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
GRANARY_JAR_MTIME="$(date -u -r "$repo/cli/target/granary.jar" +%Y-%m-%dT%H:%M:%SZ)"
granary() { java ${GRANARY_JAVA_OPTS:-} -jar "$WORK/dist/granary.jar" "$@"; }

GRANARY_PORT="$(free_ports $((TARGETS + 1)))"
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
start_granary_local
G_AK="$(grep -o 'AWS_ACCESS_KEY_ID=[^ ]*' "$WORK/granary-local.out" | cut -d= -f2)"
G_SK="$(grep -o 'AWS_SECRET_ACCESS_KEY=[^ ]*' "$WORK/granary-local.out" | cut -d= -f2)"
[[ -n "$G_AK" && -n "$G_SK" ]] || die "granary local printed no S3 keys"
PROXY_PIDS="$(pgrep -f "GranaryCommand proxy .*$WORK/granary" | tr '\n' ' ')"
TARGET_PIDS="$(pgrep -f "GranaryCommand target .*$WORK/granary" | tr '\n' ' ')"
[[ -n "${PROXY_PIDS// /}" && -n "${TARGET_PIDS// /}" ]] \
  || log "WARNING: node processes not found (proxy '$PROXY_PIDS', targets '$TARGET_PIDS'): no CPU figures"
log "Granary cluster up (proxy pid $PROXY_PIDS, target pid(s) $TARGET_PIDS)"

# Bytes of the files under the bucket's directories on the targets' mountpaths (cached copies and work files) (the layout: MOUNTPATH/objects/aws/BUCKET/...).
cached_bytes() {
  local dirs=("$WORK"/granary/*/*/objects/aws/"$BUCKET")
  [[ -e "${dirs[0]}" ]] || { echo 0; return; }
  find "${dirs[@]}" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'
}

# Registers the S3Proxy bucket with the cluster; with "fresh", unregisters it first, which drops every cached copy,
# so every object is cold again. `bucket rm` needs --force: without it the proxy lists the remote bucket, finds
# objects and answers 409 BucketNotEmpty (see bench/README.md).
REGISTERED=0
REREG_SECS=()
register() {
  local t0 out
  t0="$(now)"
  if ((REGISTERED)); then
    out="$(granary bucket rm --force "s3://$BUCKET" --cluster "$PROXY_URL" 2>&1)" \
      || die "granary bucket rm s3://$BUCKET failed: $out"
  fi
  out="$(granary bucket create "s3://$BUCKET" --cluster "$PROXY_URL" --endpoint "$REMOTE_URL" --path-style \
    --credentials-file "$WORK/credentials" 2>&1)" || die "granary bucket create s3://$BUCKET failed: $out"
  REGISTERED=1
  local left
  left="$(cached_bytes)"
  ((left == 0)) || die "after re-registering s3://$BUCKET, $left bytes of cached copies are still on the targets"
  REREG_SECS+=("$(elapsed "$t0" "$(now)")")
}
register
log "registered s3://$BUCKET (endpoint $S3_URL, path-style)"

# The reference cache: nginx with proxy_cache in front of the same remote (bench/lib.sh start_nginx_cache),
# restarted with an empty cache before each of its cold runs as Granary's bucket is re-registered before each of
# its own. NGINX_PIDS: master, workers and cache helpers, for the CPU figures.
NGINX_PIDS=""
nginx_fresh() {
  if [[ -n "$NGINX_PID" ]]; then
    stop_nginx "$NGINX_PID"
    NGINX_PID=""
  fi
  start_nginx_cache "$NGINX_BIN" "$WORK/nginx" "${REMOTE_URL##*:}"
  NGINX_PIDS="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
}
if ((NGINX)); then
  nginx_fresh
  log "nginx $("$NGINX_BIN" -v 2>&1 | sed 's/.*nginx\///') caching S3Proxy on $NGINX_URL (master pid $NGINX_PID)"
fi

# ------------------------------------------------------------------------------------------------ correctness
# A cold GET through Granary must return the source's bytes (both sizes), and so must a direct one (and nginx's).
for key in "${KEYS[0]}" "$TTFB_KEY"; do
  for who in direct cold $( ((NGINX)) && echo nginx); do
    case "$who" in
      direct) code="$(s3curl "$S3_AK:$S3_SK" "$S3_URL/$BUCKET/$key" -o "$WORK/check.bin" -w '%{http_code}')" || code="curl-$?" ;;
      cold) code="$(s3curl "$G_AK:$G_SK" "$PROXY_URL/$BUCKET/$key" -o "$WORK/check.bin" -w '%{http_code}')" || code="curl-$?" ;;
      nginx) code="$(s3curl "$S3_AK:$S3_SK" "$NGINX_URL/$BUCKET/$key" -o "$WORK/check.bin" -w '%{http_code}')" || code="curl-$?" ;;
    esac
    [[ "$code" == 200 ]] || { head -c 500 "$WORK/check.bin" >&2; die "correctness check: $who GET of $key answered $code"; }
    got="$(sha "$WORK/check.bin")"
    [[ "$got" == "${SHA[$key]}" ]] \
      || die "correctness check: $who GET of $key returned different bytes (sha256 $got, want ${SHA[$key]}, $(stat -c %s "$WORK/check.bin") bytes)"
  done
  log "sha256 ok for $key, direct and cold through Granary$( ((NGINX)) && echo " and nginx")"
done
rm -f "$WORK/check.bin"
(($(cached_bytes) > 0)) || log "WARNING: no cached copies found under $WORK/granary/*/*/objects/aws/$BUCKET after cold GETs"

# ------------------------------------------------------------------------------------------------ measurements
printf '%s\n' "${KEYS[@]}" >"$WORK/keys.txt"
RUNS="$WORK/runs.jsonl"
: >"$RUNS"

# get_all KIND CONCURRENCY OUT: GETs every throughput object once (KIND direct: from S3Proxy, cold/warm: through
# Granary, nginx: through nginx's cache) with CONCURRENCY curls in parallel, bodies to /dev/null. Sets RUN_JSON.
get_all() {
  local kind="$1" c="$2" out="$3" user base t0 t1 w0 w1 p0 g0 s0 n0 rc=0 before=null after=null
  case "$kind" in
    direct) user="$S3_AK:$S3_SK" base="$S3_URL" ;;
    nginx) user="$S3_AK:$S3_SK" base="$NGINX_URL" ;;
    *) user="$G_AK:$G_SK" base="$PROXY_URL" ;;
  esac
  [[ "$kind" != cold ]] || before="$(cached_bytes)"
  : >"$out"
  children_ticks >"$WORK/ticks.out"
  w0="$(<"$WORK/ticks.out")"
  # shellcheck disable=SC2086
  p0="$(cpu_ticks $PROXY_PIDS)" g0="$(cpu_ticks $TARGET_PIDS)" s0="$(cpu_ticks "$S3PROXY_PID")" n0="$(cpu_ticks $NGINX_PIDS)"
  t0="$(now)"
  xargs -P "$c" -I{} curl -s -o /dev/null --max-time "$CURL_TIMEOUT" --aws-sigv4 "aws:amz:us-east-1:s3" \
    --user "$user" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
    -w '{"key":"{}","code":"%{http_code}","bytes":%{size_download},"ttfb_s":%{time_starttransfer},"total_s":%{time_total}}\n' \
    "$base/$BUCKET/{}" <"$WORK/keys.txt" >>"$out" 2>"$out.err" &
  XARGS_PID=$!
  wait "$XARGS_PID" || rc=$?
  XARGS_PID=""
  t1="$(now)"
  children_ticks >"$WORK/ticks.out"
  w1="$(<"$WORK/ticks.out")"
  [[ "$kind" != cold ]] || after="$(cached_bytes)"
  # shellcheck disable=SC2086
  RUN_JSON="$(python3 - "$out" "$kind" "$c" "$t0" "$t1" "$SIZE" "$COUNT" "$CLK_TCK" "$((w1 - w0))" \
    "$(($(cpu_ticks $PROXY_PIDS) - p0))" "$(($(cpu_ticks $TARGET_PIDS) - g0))" "$(($(cpu_ticks "$S3PROXY_PID") - s0))" \
    "$(($(cpu_ticks $NGINX_PIDS) - n0))" "$before" "$after" "$rc" <<'EOF'
import json, statistics, sys
out, kind, c, t0, t1, size, count, tck, client, proxy, targets, s3proxy, nginx, before, after, rc = sys.argv[1:]
lines = [json.loads(l) for l in open(out) if l.strip()]
bad = [l for l in lines if l["code"] != "200" or l["bytes"] != int(size)]
if int(rc) != 0 or len(lines) != int(count) or bad:
    sys.exit("%s run c=%s: xargs/curl status %s, %d of %d responses, bad: %s"
             % (kind, c, rc, len(lines), int(count), json.dumps(bad[:3])))
secs = float(t1) - float(t0)
total = sum(l["bytes"] for l in lines)
tck = float(tck)
doc = {
    "seconds": round(secs, 4),
    "bytes": total,
    "bytes_per_sec": round(total / secs),
    "ttfb_median_s": round(statistics.median(l["ttfb_s"] for l in lines), 6),
    "ttfb_max_s": round(max(l["ttfb_s"] for l in lines), 6),
    "request_median_s": round(statistics.median(l["total_s"] for l in lines), 6),
    "cpu_s": {"client": round(int(client) / tck, 2), "proxy": round(int(proxy) / tck, 2),
              "targets": round(int(targets) / tck, 2), "s3proxy": round(int(s3proxy) / tck, 2),
              "nginx": round(int(nginx) / tck, 2)},
}
if kind == "cold":
    doc["cached_bytes_before"] = int(before)
    doc["cached_bytes_after"] = int(after)
print(json.dumps(doc))
EOF
  )" || { cat "$out.err" >&2; die "$kind GETs at concurrency $c failed (see above)"; }
}

show() { # kind json
  python3 - "$1" "$2" >&2 <<'EOF'
import json, sys
d = json.loads(sys.argv[2])
print("    %-6s %8.1f MiB/s in %6.2fs, TTFB median %.3fs; CPU s: %s" % (sys.argv[1], d["bytes_per_sec"] / 2**20,
      d["seconds"], d["ttfb_median_s"], ", ".join("%s %.1f" % kv for kv in d["cpu_s"].items())))
EOF
}

MEASURE_START="$(now)"
if ((WARMUP)); then
  log "warm-up (not reported): direct, cold and warm GETs of all objects at concurrency $MAX_C"
  register
  # Many small cold GETs first: the cold path (SDK request, fetch, first bytes) is JIT-compiled like the warm one.
  for ((i = 0; i < WARMUP_SMALL; i++)); do
    s3curl "$G_AK:$G_SK" "$PROXY_URL/$BUCKET/jit/$i" -o /dev/null || die "warm-up GET jit/$i through Granary failed"
    s3curl "$S3_AK:$S3_SK" "$S3_URL/$BUCKET/jit/$i" -o /dev/null || die "warm-up GET jit/$i from S3Proxy failed"
  done
  for kind in direct cold warm $( ((NGINX)) && echo nginx); do
    [[ "$kind" != nginx ]] || nginx_fresh
    get_all "$kind" "$MAX_C" "$WORK/curl/warmup-$kind.jsonl"
    show "$kind" "$RUN_JSON"
  done
fi

for ((r = 1; r <= ROUNDS; r++)); do
  for c in $CONCURRENCY; do
    log "round $r/$ROUNDS, concurrency $c: $COUNT x ${SIZE_MIB} MiB direct, then cold and warm through Granary$( ((NGINX)) && echo ", then cold through nginx")"
    get_all direct "$c" "$WORK/curl/r$r-c$c-direct.jsonl"
    direct="$RUN_JSON"
    show direct "$direct"
    register # every object cold again
    get_all cold "$c" "$WORK/curl/r$r-c$c-cold.jsonl"
    cold="$RUN_JSON"
    show cold "$cold"
    get_all warm "$c" "$WORK/curl/r$r-c$c-warm.jsonl"
    warm="$RUN_JSON"
    show warm "$warm"
    ngx=null
    if ((NGINX)); then
      nginx_fresh # every object cold again
      get_all nginx "$c" "$WORK/curl/r$r-c$c-nginx.jsonl"
      ngx="$RUN_JSON"
      show nginx "$ngx"
    fi
    printf '{"type":"throughput","round":%d,"concurrency":%d,"direct":%s,"cold":%s,"warm":%s,"nginx":%s}\n' \
      "$r" "$c" "$direct" "$cold" "$warm" "$ngx" >>"$RUNS"
  done
done

# TTFB of the large object: direct, then cold through Granary after a fresh registration, then warm (and with
# NGINX, cold through nginx after a restart with an empty cache, after the same 4 KiB prelude). Between the
# registration and the cold GET of the large object, one 4 KiB object is read cold (its first byte is reported as
# prelude_s): the large object's figure is then that of a cold read in a bucket in use, as during training, and not
# of the first request after seconds of silence, which also pays the backend client's check of its idle pooled
# connection (Apache HttpClient validates a connection idle for 2 s or more before reusing it).
ttfb_one() { # kind [key size] -> one JSON object
  local user base line key="${2:-$TTFB_KEY}" size="${3:-$TTFB_SIZE}"
  case "$1" in
    direct) user="$S3_AK:$S3_SK" base="$REMOTE_URL" ;;
    nginx) user="$S3_AK:$S3_SK" base="$NGINX_URL" ;;
    *) user="$G_AK:$G_SK" base="$PROXY_URL" ;;
  esac
  line="$(s3curl "$user" "$base/$BUCKET/$key" -o /dev/null \
    -w '{"code":"%{http_code}","bytes":%{size_download},"ttfb_s":%{time_starttransfer},"total_s":%{time_total}}')" \
    || die "$1 GET of $key failed (curl exit $?)"
  python3 -c '
import json, sys
d = json.loads(sys.argv[1])
if d["code"] != "200" or d["bytes"] != int(sys.argv[2]):
    sys.exit("%s GET of %s: %s" % (sys.argv[3], sys.argv[4], sys.argv[1]))
del d["code"]
print(json.dumps(d))' "$line" "$size" "$1" "$key" || die "TTFB $1 GET of $key failed"
}
if [[ -n "$RELAY_URL" ]]; then
  REMOTE_URL="$RELAY_URL" # the next registration points the bucket at the relay
  # Connections through the relay are new: warm them (and the proxy's cold path to them) as the prelude does later.
  register
  for ((i = 0; i < (WARMUP ? 50 : 0) && i < WARMUP_SMALL; i++)); do
    s3curl "$G_AK:$G_SK" "$PROXY_URL/$BUCKET/jit/$i" -o /dev/null || die "GET jit/$i through Granary and the relay failed"
  done
fi
for ((r = 1; r <= TTFB_REPS; r++)); do
  log "TTFB $r/$TTFB_REPS: ${TTFB_SIZE_MIB} MiB object direct, cold and warm through Granary$( ((NGINX)) && echo ", cold through nginx")"
  d="$(ttfb_one direct)"
  register
  p="$(ttfb_one cold "$PRELUDE_KEY" 4096)"
  s0="$(cpu_ticks "$S3PROXY_PID")"
  k="$(ttfb_one cold)"
  fetched=$(($(cpu_ticks "$S3PROXY_PID") - s0))
  w="$(ttfb_one warm)"
  np=null n=null
  if ((NGINX)); then # the same sequence through nginx: an empty cache, a 4 KiB prelude, the large object cold
    nginx_fresh
    np="$(ttfb_one nginx "$PRELUDE_KEY" 4096)"
    n="$(ttfb_one nginx)"
  fi
  printf '{"type":"ttfb","rep":%d,"direct":%s,"prelude":%s,"cold":%s,"warm":%s,"nginx_prelude":%s,"nginx":%s,"s3proxy_cpu_ticks_cold":%d}\n' \
    "$r" "$d" "$p" "$k" "$w" "$np" "$n" "$fetched" >>"$RUNS"
  python3 - "$d" "$k" "$w" "$p" "$n" >&2 <<'EOF'
import json, sys
d, k, w, p, n = (json.loads(a) for a in sys.argv[1:])
print("    first byte: direct %.4fs, cold %.4fs, warm %.4fs (4 KiB prelude cold %.4fs)%s; whole object: direct %.3fs, cold %.3fs, warm %.3fs"
      % (d["ttfb_s"], k["ttfb_s"], w["ttfb_s"], p["ttfb_s"], ", nginx cold %.4fs" % n["ttfb_s"] if n else "",
         d["total_s"], k["total_s"], w["total_s"]))
EOF
done
MEASURE_SECS="$(elapsed "$MEASURE_START" "$(now)")"

# ------------------------------------------------------------------------------------------------ report
java_version="$(java -version 2>&1 | sed -n 1p)"
curl_version="$(curl --version | sed -n 1p | cut -d' ' -f1-2)"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
result_file="$results_dir/cold-get-$stamp.json"

export BENCH_DIR="$here" BENCH_RUNS="$RUNS" BENCH_JAVA="$java_version" BENCH_CURL="$curl_version" BENCH_GIT="$git_rev${git_dirty:+-dirty}" \
  BENCH_STAMP="$stamp" BENCH_UPLOAD_SECS="$upload_secs" BENCH_MEASURE_SECS="$MEASURE_SECS" \
  BENCH_TOTAL_SECS="$(elapsed "$T_START" "$(now)")" BENCH_REREG="${REREG_SECS[*]}" BENCH_LOGS="$WORK/granary/logs" \
  BENCH_S3PROXY_LOG="$WORK/s3proxy.log" BENCH_NGINX_ERR="$WORK/nginx/error.log" BENCH_JAR_MTIME="$GRANARY_JAR_MTIME" BENCH_S3PROXY_VERSION="$S3PROXY_VERSION" \
  BENCH_SIZE="$SIZE" BENCH_TTFB_SIZE="$TTFB_SIZE" \
  BENCH_NGINX="$( ((NGINX)) && "$NGINX_BIN" -v 2>&1 | sed 's/.*nginx\///')" \
  COUNT CONCURRENCY ROUNDS TTFB_REPS WARMUP WARMUP_SMALL LINK_MBIT REMOTE_DELAY_MS NGINX TARGETS GRANARY_ARGS S3PROXY_JVM_OPTS BUCKET
python3 - >"$result_file" <<'EOF'
import glob, json, os, re, statistics, sys

E = os.environ
sys.path.insert(0, E["BENCH_DIR"])
from hostfacts import host_facts
runs = [json.loads(l) for l in open(E["BENCH_RUNS"]) if l.strip()]

def med(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 6) if xs else None

def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None

GOAL_THROUGHPUT = 0.95  # cold bytes/s >= 0.95 x direct
GOAL_TTFB = 1.2         # cold first byte <= 1.2 x direct

results = []
for c in [int(x) for x in E["CONCURRENCY"].split()]:
    rs = [r for r in runs if r["type"] == "throughput" and r["concurrency"] == c]
    rounds = []
    for r in rs:
        rounds.append({
            "round": r["round"],
            "direct": r["direct"], "cold": r["cold"], "warm": r["warm"],
            "ratio_cold_vs_direct": ratio(r["cold"]["bytes_per_sec"], r["direct"]["bytes_per_sec"]),
            "ratio_warm_vs_direct": ratio(r["warm"]["bytes_per_sec"], r["direct"]["bytes_per_sec"]),
        })
    d = med(r["direct"]["bytes_per_sec"] for r in rs)
    k = med(r["cold"]["bytes_per_sec"] for r in rs)
    w = med(r["warm"]["bytes_per_sec"] for r in rs)
    n = med(r["nginx"]["bytes_per_sec"] for r in rs if r.get("nginx"))
    for x, r in zip(rounds, rs):
        if r.get("nginx"):
            x["nginx"] = r["nginx"]
            x["ratio_nginx_vs_direct"] = ratio(r["nginx"]["bytes_per_sec"], r["direct"]["bytes_per_sec"])
    results.append({
        "concurrency": c,
        "direct_bytes_per_sec": round(d),
        "cold_bytes_per_sec": round(k),
        "warm_bytes_per_sec": round(w),
        "ratio_cold_vs_direct": ratio(k, d),
        "ratio_warm_vs_direct": ratio(w, d),
        "ratio_cold_vs_direct_per_round": [x["ratio_cold_vs_direct"] for x in rounds],
        "nginx_bytes_per_sec": round(n) if n else None,
        "ratio_nginx_vs_direct": ratio(n, d),
        "ratio_cold_vs_nginx": ratio(k, n),
        "direct_ttfb_median_s": med(r["direct"]["ttfb_median_s"] for r in rs),
        "cold_ttfb_median_s": med(r["cold"]["ttfb_median_s"] for r in rs),
        "warm_ttfb_median_s": med(r["warm"]["ttfb_median_s"] for r in rs),
        "cpu_s_median": {kind: {p: med(r[kind]["cpu_s"][p] for r in rs) for p in rs[0][kind]["cpu_s"]}
                         for kind in ("direct", "cold", "warm", "nginx") if rs[0].get(kind)},
        "rounds": rounds,
    })

tt = [r for r in runs if r["type"] == "ttfb"]
ttfb = {
    "object_bytes": int(E["BENCH_TTFB_SIZE"]),
    "direct_s": med(r["direct"]["ttfb_s"] for r in tt),
    "cold_s": med(r["cold"]["ttfb_s"] for r in tt),
    "warm_s": med(r["warm"]["ttfb_s"] for r in tt),
}
ttfb["prelude_s"] = med(r["prelude"]["ttfb_s"] for r in tt)
ttfb["ratio"] = ratio(ttfb["cold_s"], ttfb["direct_s"])
ttfb["ratio_warm_vs_direct"] = ratio(ttfb["warm_s"], ttfb["direct_s"])
ttfb["direct_total_s"] = med(r["direct"]["total_s"] for r in tt)
ttfb["cold_total_s"] = med(r["cold"]["total_s"] for r in tt)
ttfb["warm_total_s"] = med(r["warm"]["total_s"] for r in tt)
ttfb["ratio_total"] = ratio(ttfb["cold_total_s"], ttfb["direct_total_s"])
ttfb["nginx_s"] = med(r["nginx"]["ttfb_s"] for r in tt if r.get("nginx"))
ttfb["nginx_prelude_s"] = med(r["nginx_prelude"]["ttfb_s"] for r in tt if r.get("nginx_prelude"))
ttfb["ratio_nginx_vs_direct"] = ratio(ttfb["nginx_s"], ttfb["direct_s"])
ttfb["ratio_cold_vs_nginx"] = ratio(ttfb["cold_s"], ttfb["nginx_s"])
ttfb["nginx_total_s"] = med(r["nginx"]["total_s"] for r in tt if r.get("nginx"))
ttfb["reps"] = [{k: r[k] for k in ("rep", "direct", "prelude", "cold", "warm", "nginx_prelude", "nginx") if r.get(k)}
                for r in tt]

tp = {str(e["concurrency"]): e["ratio_cold_vs_direct"] for e in results}
goals = {
    "throughput": {"goal_min_ratio": GOAL_THROUGHPUT, "ratio_per_concurrency": tp,
                   "met": all(v is not None and v >= GOAL_THROUGHPUT for v in tp.values())},
    "ttfb": {"goal_max_ratio": GOAL_TTFB, "ratio": ttfb["ratio"],
             "met": ttfb["ratio"] is not None and ttfb["ratio"] <= GOAL_TTFB},
}
goals["all_met"] = goals["throughput"]["met"] and goals["ttfb"]["met"]

def issues(paths):
    out = {}
    for path in paths:
        try:
            lines = [l.rstrip() for l in open(path, errors="replace")
                     if re.search(r"\b(WARN|ERROR|Exception|SEVERE)\b|\] [WE] \d", l)]
        except OSError:
            continue
        if lines:
            out[os.path.basename(path)] = {"count": len(lines), "first": lines[:5]}
    return out

rereg = [float(x) for x in E["BENCH_REREG"].split()]
doc = {
    "benchmark": "cold-get",
    "timestamp": E["BENCH_STAMP"],
    "machine": {
        **host_facts(),
        "java": E["BENCH_JAVA"],
        "curl": E["BENCH_CURL"],
        "s3proxy": E["BENCH_S3PROXY_VERSION"],
        "granary_git": E["BENCH_GIT"],
        "granary_jar_built": E["BENCH_JAR_MTIME"],
    },
    "parameters": {
        "count": int(E["COUNT"]),
        "object_bytes": int(E["BENCH_SIZE"]),
        "ttfb_object_bytes": int(E["BENCH_TTFB_SIZE"]),
        "concurrency": [int(x) for x in E["CONCURRENCY"].split()],
        "rounds": int(E["ROUNDS"]),
        "ttfb_reps": int(E["TTFB_REPS"]),
        "warmup": E["WARMUP"] == "1",
        "warmup_small_objects": int(E["WARMUP_SMALL"]) if E["WARMUP"] == "1" else 0,
        "remote_link_mbit": int(E["LINK_MBIT"]) or None,
        "remote_delay_ms": int(E["REMOTE_DELAY_MS"]) or None,
        "ttfb_method": "per rep: direct GET; re-register the bucket; cold GET of a 4 KiB object (prelude_s); cold GET of the TTFB object (cold_s); warm GET"
                       + ("; restart nginx with an empty cache; 4 KiB object through it (nginx_prelude_s); the TTFB object through it (nginx_s)" if E["NGINX"] == "1" else ""),
        "reference_nginx": ("nginx %s as a caching reverse proxy (proxy_cache, proxy_cache_lock, upstream keep-alive, no checksum verification), restarted with an empty cache before each cold run" % E["BENCH_NGINX"]) if E["NGINX"] == "1" else None,
        "targets": int(E["TARGETS"]),
        "granary_args": E["GRANARY_ARGS"],
        "s3proxy_jvm_opts": E["S3PROXY_JVM_OPTS"],
        "bucket": E["BUCKET"],
        "client": "curl --aws-sigv4 aws:amz:us-east-1:s3 -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD', one process per GET, body to /dev/null",
        "remote": "S3Proxy %s, jclouds filesystem provider, on this machine%s" % (E["BENCH_S3PROXY_VERSION"],
                  (", its answers sharing a %s Mbit/s link (tc htb on lo)" % E["LINK_MBIT"] if int(E["LINK_MBIT"]) else "")
                  + (", and for the TTFB part %s ms behind a delaying relay (bench/delay-relay.py)" % E["REMOTE_DELAY_MS"]
                     if int(E["REMOTE_DELAY_MS"]) else "")),
    },
    "results": results,
    "ttfb": ttfb,
    "goals": goals,
    "times": {
        "upload_s": float(E["BENCH_UPLOAD_SECS"]),
        "measure_s": float(E["BENCH_MEASURE_SECS"]),
        "total_s": float(E["BENCH_TOTAL_SECS"]),
        "reregister_s_median": med(rereg),
        "reregistrations": len(rereg),
    },
    "diagnostics": {
        "granary_log_issues": issues(sorted(glob.glob(os.path.join(E["BENCH_LOGS"], "*.log")))),
        "s3proxy_log_issues": issues([E["BENCH_S3PROXY_LOG"]]),
        "nginx_error_log_issues": issues([E["BENCH_NGINX_ERR"]]) if E["NGINX"] == "1" else None,
    },
}
print(json.dumps(doc, indent=2))
EOF
cat "$result_file"
log "results written to $result_file"
python3 - "$result_file" >&2 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["results"]:
    print("  c=%-3d direct %7.1f MiB/s, cold %7.1f MiB/s (ratio %.3f), warm %7.1f MiB/s%s"
          % (e["concurrency"], e["direct_bytes_per_sec"] / 2**20, e["cold_bytes_per_sec"] / 2**20,
             e["ratio_cold_vs_direct"], e["warm_bytes_per_sec"] / 2**20,
             "; nginx cold %.1f MiB/s (ratio %.3f)" % (e["nginx_bytes_per_sec"] / 2**20, e["ratio_nginx_vs_direct"])
             if e["nginx_bytes_per_sec"] else ""))
t = d["ttfb"]
print("  TTFB %d MiB: direct %.4fs, cold %.4fs (ratio %.2f), warm %.4fs%s" % (t["object_bytes"] >> 20, t["direct_s"],
      t["cold_s"], t["ratio"], t["warm_s"],
      "; nginx cold %.4fs (ratio %.2f)" % (t["nginx_s"], t["ratio_nginx_vs_direct"]) if t["nginx_s"] else ""))
g = d["goals"]
print("  goals: throughput >= %.2fx direct: %s; first byte <= %.1fx direct: %s"
      % (g["throughput"]["goal_min_ratio"], g["throughput"]["met"], g["ttfb"]["goal_max_ratio"], g["ttfb"]["met"]))
EOF
