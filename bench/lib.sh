#!/usr/bin/env bash
# Helpers shared by the benchmark scripts (sourced, not run).

# cpu_ticks PID...: user + system clock ticks the processes have used (0 for a process that is gone)
cpu_ticks() {
  local total=0 p stat
  for p in "$@"; do
    stat="$(cat "/proc/$p/stat" 2>/dev/null)" || continue
    stat="${stat##*) }" # fields after "(comm) "; utime and stime are fields 14 and 15, here 12 and 13
    read -r -a f <<<"$stat"
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}

# ------------------------------------------------------------------------------------------------ helpers
# A block of N consecutive free TCP ports on 127.0.0.1, below the kernel's ephemeral range (32768 and up), so that
# no client connection takes one of them as its local port meanwhile; prints the first.
free_ports() {
  python3 - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
def free(p):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", p))
        return True
    except OSError:
        return False
    finally:
        s.close()
for _ in range(500):
    base = random.randint(20000, 32000 - n)
    if all(free(base + i) for i in range(n)):
        print(base)
        sys.exit(0)
sys.exit("no block of %d free ports found" % n)
EOF
}

# ------------------------------------------------------------------------------------------------ shared by the scripts
# The scripts define log and die before sourcing these into use.
is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# stop_pid PID SIGNAL SECONDS: signal, wait up to SECONDS, then SIGKILL
stop_pid() {
  local pid="$1" sig="$2" secs="$3" i
  [[ -n "$pid" ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not exit after SIG$sig within ${secs}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# pids_under DIR: this run's processes, i.e. those whose command line names a path under DIR (another developer
# may run Granary, nginx or S3Proxy on this machine too; theirs are never touched).
pids_under() {
  [[ -n "$1" ]] || return 0
  local p
  for p in $(pgrep -f -- "$1/" 2>/dev/null || true); do
    [[ "$p" != "$$" && "$p" != "$BASHPID" ]] || continue
    if [[ -r /proc/$p/cmdline ]] && tr '\0' ' ' <"/proc/$p/cmdline" | grep -qF -- "$1/"; then
      echo "$p"
    fi
  done
}

# end_run RC DIR KEEP: kills what is left of this run under DIR (which makes the status 1), removes DIR unless
# KEEP is 1, and exits with the status. The last step of every script's EXIT trap.
end_run() {
  local rc="$1" dir="$2" keep="$3" left p
  left="$(pids_under "$dir")"
  if [[ -n "$left" ]]; then
    log "WARNING: leftover processes of this run after shutdown, killing: $(xargs <<<"$left")"
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
    sleep 1
    left="$(pids_under "$dir")"
    [[ -z "$left" ]] || log "ERROR: processes still alive: $(xargs <<<"$left")"
    ((rc != 0)) || rc=1
  fi
  if [[ -n "$dir" && -d "$dir" ]]; then
    if [[ "$keep" == 1 ]]; then
      log "keeping work dir $dir"
    else
      rm -rf "$dir"
    fi
  fi
  ((rc == 0)) || log "exiting with status $rc"
  exit "$rc"
}

# install_missing PKG...: installs these Debian packages with apt-get (with sudo when not root), running
# apt-get update and retrying once if the first install fails; does nothing without arguments. Uses the caller's
# log and die.
install_missing() {
  (($#)) || return 0
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || die "not root and sudo is missing: cannot install $*"
    sudo=(sudo)
  fi
  log "installing $* with apt-get"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2; then
    log "apt-get install failed; running apt-get update and retrying"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >&2 || die "apt-get update failed"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2 \
      || die "could not install $*"
  fi
}

# nginx_missing: succeeds when there is no nginx, on PATH or where Debian puts it (/usr/sbin, which a non-root PATH
# may lack). nginx_bin: its path, or die.
nginx_missing() { ! command -v nginx >/dev/null && [[ ! -x /usr/sbin/nginx ]]; }
nginx_bin() {
  local bin
  bin="$(command -v nginx || echo /usr/sbin/nginx)"
  [[ -x "$bin" ]] || die "nginx not found after install"
  echo "$bin"
}

# start_nginx NGINX_BIN DIR ROOT: nginx in the foreground serving ROOT on a free 127.0.0.1 port, configured like
# a tuned static server (sendfile, tcp_nopush, open_file_cache, long keep-alive, no access log, a worker per core),
# its files under DIR. Sets NGINX_PORT, NGINX_PID and NGINX_URL.
start_nginx() {
  run_nginx "$1" "$2" "  root $3;
  location / { }" ""
}

# start_nginx_cache NGINX_BIN DIR UPSTREAM_PORT: nginx as a caching reverse proxy in front of the S3 server on
# 127.0.0.1:UPSTREAM_PORT, with an empty cache under DIR/cache: the first GET of an object is a miss that nginx
# streams to the client while it writes the cache file (proxy_cache, one upstream fetch per object with
# proxy_cache_lock), later GETs are hits. The client's Host header goes upstream unchanged, so its SigV4 signature
# verifies there. Nothing is verified against a checksum: what a cache costs without that. Sets what start_nginx sets.
start_nginx_cache() {
  local dir="$2"
  rm -rf "$dir/cache"
  mkdir -p "$dir/cache"
  run_nginx "$1" "$dir" "  location / {
    proxy_pass http://remote;
    proxy_http_version 1.1;
    proxy_set_header Connection \"\";
    proxy_set_header Host \$http_host;
    proxy_cache objects;
    proxy_cache_key \$uri;
    proxy_cache_valid 200 1d;
    proxy_cache_lock on;
    proxy_cache_lock_timeout 600s;
    proxy_read_timeout 600s;
    proxy_buffer_size 64k;
    proxy_buffers 16 256k;
    proxy_busy_buffers_size 512k;
  }" "  proxy_cache_path $dir/cache levels=1:2 keys_zone=objects:64m max_size=100g inactive=1d use_temp_path=off;
  upstream remote { server 127.0.0.1:$3; keepalive 32; }"
}

# run_nginx NGINX_BIN DIR SERVER_BODY HTTP_EXTRA: the common part of the two above.
run_nginx() {
  local bin="$1" dir="$2" user_line="" i
  mkdir -p "$dir/tmp"
  NGINX_PORT="$(free_ports 1)"
  ((EUID != 0)) || user_line="user root;" # workers must read the work dir whatever TMPDIR's parents allow
  cat >"$dir/nginx.conf" <<CONF
$user_line
daemon off;
master_process on;
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  # as production runs it: file descriptors and their stat kept between requests, as a target keeps its metadata
  open_file_cache max=10000 inactive=60s;
  open_file_cache_valid 60s;
  keepalive_requests 100000;
  keepalive_timeout 75s;
  default_type application/octet-stream;
  client_body_temp_path $dir/tmp/client;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
$4
  server {
    listen 127.0.0.1:$NGINX_PORT;
$3
  }
}
CONF
  "$bin" -t -p "$dir/" -e "$dir/error.log" -c "$dir/nginx.conf" 2>"$dir/test.out" \
    || { cat "$dir/test.out" >&2; die "nginx rejected its configuration ($dir/nginx.conf)"; }
  "$bin" -p "$dir/" -e "$dir/error.log" -c "$dir/nginx.conf" >"$dir/stdout" 2>&1 &
  NGINX_PID=$!
  NGINX_URL="http://127.0.0.1:$NGINX_PORT"
  for ((i = 0; ; i++)); do
    kill -0 "$NGINX_PID" 2>/dev/null || { cat "$dir/stdout" "$dir/error.log" >&2 2>/dev/null; die "nginx exited at startup"; }
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "$NGINX_URL/" 2>/dev/null || true)" =~ ^(200|403|404)$ ]] && break
    ((i < 100)) || die "nginx did not start listening on $NGINX_URL within 10s"
    sleep 0.1
  done
}

# stop_nginx PID: the master with SIGTERM (then SIGKILL), and any worker it leaves
stop_nginx() {
  local workers p
  workers="$(pgrep -P "$1" 2>/dev/null)"
  stop_pid "$1" TERM 15
  for p in $workers; do kill -KILL "$p" 2>/dev/null || true; done
}

# ensure_granary_dist: with BUILD=auto, has ./granary build Granary if its sources changed (keeping an existing
# cli/target/granary.jar, with a warning, if that build fails); dies unless cli/target holds a distribution. Uses the
# caller's log, die, repo and BUILD.
ensure_granary_dist() {
  if [[ "$BUILD" == auto ]]; then
    log "building Granary if needed (first build can take a few minutes)"
    if ! "$repo/granary" --version >/dev/null; then
      [[ -f "$repo/cli/target/granary.jar" ]] || die "could not build granary (see Maven output above)"
      log "WARNING: the Granary build failed (see above); using the existing cli/target/granary.jar"
    fi
  fi
  [[ -f "$repo/cli/target/granary.jar" && -d "$repo/cli/target/lib" ]] \
    || die "no Granary distribution in cli/target (run ./granary --version, or BUILD=auto)"
}

# start_granary_local: starts `granary local` from this run's private copy ($WORK/dist/granary.jar) with $TARGETS
# targets, the proxy on $GRANARY_PORT and data under $WORK/granary (output in $WORK/granary-local.out), sets
# GRANARY_PID, and waits until the proxy is healthy and the cluster map lists every target active. Uses the
# caller's log, die, repo, PROXY_URL, START_TIMEOUT, GRANARY_ARGS and GRANARY_JAVA_OPTS, and CLASS_SHARING
# (`granary local --class-sharing`, default off: a fresh data dir would dump its class-data archive in the
# background, on the cores measured).
start_granary_local() {
  local i active
  mkdir -p "$WORK/granary"
  : >"$WORK/granary-local.out"
  # The launcher's own JVM options, unless GRANARY_JAVA_OPTS is set: those ./granary gives `granary local`.
  local launcher_opts="${GRANARY_JAVA_OPTS--Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}"
  # shellcheck disable=SC2086 # launcher_opts and GRANARY_ARGS are lists of words on purpose
  (cd "$repo" && exec java $launcher_opts -jar "$WORK/dist/granary.jar" local --targets "$TARGETS" \
    --port "$GRANARY_PORT" --data "$WORK/granary" --log-dir-only --class-sharing="${CLASS_SHARING:-off}" \
    ${GRANARY_ARGS:-}) \
    >"$WORK/granary-local.out" 2>&1 &
  GRANARY_PID=$!
  log "starting granary local (pid $GRANARY_PID): proxy $PROXY_URL, $TARGETS target(s)"
  for ((i = 0; ; i++)); do
    if ! kill -0 "$GRANARY_PID" 2>/dev/null; then
      cat "$WORK/granary-local.out" >&2
      tail -n 30 "$WORK"/granary/logs/*.log >&2 2>/dev/null || true
      die "granary local exited during startup"
    fi
    grep -q "Granary local cluster is up" "$WORK/granary-local.out" && break
    ((i < START_TIMEOUT * 5)) || die "Granary local cluster not up within ${START_TIMEOUT}s (see $WORK/granary-local.out)"
    sleep 0.2
  done
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$PROXY_URL/v1/health")" == 200 ]] || die "proxy /v1/health is not 200"
  active="$(curl -sf "$PROXY_URL/v1/cluster/map" | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(sum(1 for t in m.get("targets", {}).values() if t.get("state") == "active"))')" \
    || die "cannot read $PROXY_URL/v1/cluster/map"
  ((active == TARGETS)) || die "cluster map lists $active active targets, expected $TARGETS"
  log "Granary cluster up: $active active target(s)"
}

# load_run NAME ARGS...: `granary load` ($WORK/dist/granary.jar) with ARGS, its JSON to $WORK/out/NAME.json and a
# summary line on stderr; dies (the caller's die) when it fails, reports errors or did nothing
load_run() {
  local name="$1"
  shift
  java -jar "$WORK/dist/granary.jar" load --interval 0 --json "$WORK/out/$name.json" "$@" \
    >"$WORK/out/$name.txt" 2>&1 || { cat "$WORK/out/$name.txt" >&2; die "granary load ($name) failed"; }
  python3 - "$WORK/out/$name.json" "$name" >&2 <<'EOF' || die "granary load ($name) reported errors (see $WORK/out/$name.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
parts, errors = [], 0
for op in ("get", "put"):
    o = d.get(op)
    if o and (o["count"] or o["errors"]):
        parts.append("%s %d, %.1f MiB/s, %.0f req/s, p50 %s us, p99 %s us" % (
            op.upper(), o["count"], o["throughput_bytes_per_sec"] / 2**20, o["ops_per_sec"], o["latency_us"]["p50"],
            o["latency_us"]["p99"]))
        errors += o["errors"]
print("    %s: %s in %.1fs, errors %d" % (sys.argv[2], "; ".join(parts) or "nothing", d["duration_s"], errors))
sys.exit(1 if errors or not parts else 0)
EOF
}

# ------------------------------------------------------------------------------------------------ wrk
# Writes a wrk Lua script that sends each thread to one address (a group = one server) and cycles through that
# group's paths; done() prints one JSON line prefixed with WRKJSON.
# Usage: make_lua OUT host:port:path[,path...] [host:port:path,...]...
make_lua() {
  python3 - "$@" <<'EOF'
import re, sys
out, specs = sys.argv[1], sys.argv[2:]
def lua_str(s):
    if not re.fullmatch(r"[A-Za-z0-9_./:?&=%~+-]+", s):  # no quotes, backslashes or newlines
        sys.exit("unsafe string for the Lua script: %r" % s)
    return '"%s"' % s
groups = []
for spec in specs:
    host, port, paths = spec.split(":", 2)
    groups.append("  { host = %s, port = %s, paths = { %s } }" % (
        lua_str(host), lua_str(port), ", ".join(lua_str(p) for p in paths.split(","))))
lua = """-- generated by bench/lib.sh make_lua
local groups = {
%s
}

local created = 0
function setup(thread)
  created = created + 1
  local gi = ((created - 1) %% #groups) + 1
  local g = groups[gi]
  thread.addr = wrk.lookup(g.host, g.port)[1]
  thread:set("gid", gi)
  thread:set("tid", created)
end

local reqs, n, i
function init(args)
  local g = groups[gid]
  -- The Host header names the thread's own address (wrk's default is the command line's): SigV4 signs it
  local headers = { Host = g.host .. ":" .. g.port }
  reqs = {}
  for k, p in ipairs(g.paths) do reqs[k] = wrk.format("GET", p, headers) end
  n = #reqs
  i = ((tid - 1) * 7) %% n
end

function request()
  i = i %% n + 1
  return reqs[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%%.0f,"bytes":%%.0f,"duration_us":%%.0f,' ..
    '"errors":{"connect":%%.0f,"read":%%.0f,"write":%%.0f,"status":%%.0f,"timeout":%%.0f},' ..
    '"latency_us":{"p50":%%.0f,"p90":%%.0f,"p99":%%.0f,"p999":%%.0f,"mean":%%.1f,"stdev":%%.1f,"max":%%.0f}}\\n',
    summary.requests, summary.bytes, summary.duration,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.mean, latency.stdev, latency.max))
end
""" % ",\n".join(groups)
with open(out, "w") as f:
    f.write(lua)
EOF
}

CLK_TCK="$(getconf CLK_TCK)"
# children_ticks: user + system ticks of this shell's reaped children (bash `times`, second line). `times` runs in
# this shell (a command substitution would report the subshell's children), writing to a file.
children_ticks() {
  local t
  times >"$WORK/times.out"
  t="$(sed -n 2p "$WORK/times.out")"
  python3 -c 'import re, sys
tck = int(sys.argv[2])
print(round(sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", sys.argv[1])) * tck))' "$t" "$CLK_TCK"
}
