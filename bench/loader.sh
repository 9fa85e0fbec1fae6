#!/usr/bin/env bash
# Loader benchmark: is the bundled loader ever the bottleneck? `granary load --protocol http` and wrk read the same
# files from the same nginx (page cache warm), at the same connection counts, in interleaved rounds. Reported per
# size and concurrency: MiB/s of each, the ratio loader/wrk (goal >= 0.9), and the CPU seconds each client spent per
# GiB read (from /proc: user + system), which is what makes a loader the bottleneck on a shared machine.
#
# Prints one JSON document on stdout and writes it to bench/results/loader-<timestamp>.json. Progress goes to stderr.
# Run it on an otherwise idle machine: nginx and the client share the cores.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
SIZES="${SIZES:-150KiB 1MiB}"            # object sizes
FILES_150KiB="${FILES_150KiB:-2000}"     # files of each size (read in a cycle)
FILES_1MiB="${FILES_1MiB:-400}"
CONCURRENCY="${CONCURRENCY:-8 32}"       # connections: wrk -c, granary load --workers
SECONDS_PER_RUN="${SECONDS_PER_RUN:-8}"  # timed seconds per run
ROUNDS="${ROUNDS:-3}"                    # interleaved rounds; medians reported
WRK_THREADS="${WRK_THREADS:-2}"          # wrk -t (capped at the connection count)
GRANARY_JAVA_OPTS="${GRANARY_JAVA_OPTS:-}" # JVM options of the loader
BUILD="${BUILD:-auto}"                   # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                        # 1: keep the work dir

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[loader %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[loader] ERROR: %s\n' "$*" >&2; exit 1; }

for v in FILES_150KiB FILES_1MiB SECONDS_PER_RUN ROUNDS WRK_THREADS KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((ROUNDS >= 1 && SECONDS_PER_RUN >= 1 && WRK_THREADS >= 1)) || die "ROUNDS, SECONDS_PER_RUN and WRK_THREADS must be >= 1"
((KEEP <= 1)) || die "KEEP must be 0 or 1, got '$KEEP'"
for s in $SIZES; do
  [[ " 150KiB 1MiB " == *" $s "* ]] || die "unknown size '$s' in SIZES (150KiB 1MiB)"
done
for c in $CONCURRENCY; do
  is_uint "$c" && ((c >= 1)) || die "CONCURRENCY values must be >= 1, got '$c'"
done

need=()
nginx_missing && need+=(nginx)
command -v wrk >/dev/null || need+=(wrk)
install_missing "${need[@]}"
NGINX_BIN="$(nginx_bin)"
WRK_BIN="$(command -v wrk)" || die "wrk not found after install"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-loader.XXXXXX")"
mkdir -p "$WORK/files" "$WORK/out" "$WORK/nginx" "$results_dir"
NGINX_PID=""
cleanup() {
  local rc=$?
  [[ -z "$NGINX_PID" ]] || stop_nginx "$NGINX_PID"
  end_run "$rc" "$WORK" "$KEEP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"

# ------------------------------------------------------------------------------------------------ files, nginx
for s in $SIZES; do
  count="FILES_$s"; count="${!count}"
  [[ "$s" == 1MiB ]] && bytes=$((1 << 20)) || bytes=$((150 << 10))
  mkdir -p "$WORK/files/$s"
  log "writing $count files of $s"
  python3 - "$WORK/files/$s" "$count" "$bytes" <<'EOF'
import os, sys
d, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
block = os.urandom(size)
for i in range(n):
    with open(os.path.join(d, "f%05d" % i), "wb") as f:
        f.write(block[i % 251:] + block[:i % 251])
EOF
  (cd "$WORK/files/$s" && ls) >"$WORK/names-$s.txt"
done
cat "$WORK"/files/*/* >/dev/null # into the page cache
start_nginx "$NGINX_BIN" "$WORK/nginx" "$WORK/files"
NGINX_PIDS="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
for s in $SIZES; do
  paths="$(sed "s#^#/$s/#" "$WORK/names-$s.txt" | paste -sd, -)"
  make_lua "$WORK/wrk-$s.lua" "127.0.0.1:$NGINX_PORT:$paths"
done
LOAD_START="$(cut -d' ' -f1 /proc/loadavg)"

# ------------------------------------------------------------------------------------------------ runs
RUNS="$WORK/runs.jsonl"
: >"$RUNS"

# cpu_of CMD...: runs CMD and writes the CPU ticks (user + system) it and its children used to $WORK/cpu.out
cpu_of() {
  local t0 t1 rc=0
  children_ticks >"$WORK/ticks.out"
  t0="$(<"$WORK/ticks.out")"
  "$@" || rc=$?
  children_ticks >"$WORK/ticks.out"
  t1="$(<"$WORK/ticks.out")"
  echo $((t1 - t0)) >"$WORK/cpu.out"
  return "$rc"
}

run_wrk_once() { # SIZE CONNS ROUND
  local s="$1" c="$2" r="$3" t out n0 n1
  t=$((c < WRK_THREADS ? c : WRK_THREADS))
  out="$WORK/out/wrk-$s-$c-$r.txt"
  n0="$(cpu_ticks $NGINX_PIDS)"
  cpu_of "$WRK_BIN" -t "$t" -c "$c" -d "${SECONDS_PER_RUN}s" --timeout 30s -s "$WORK/wrk-$s.lua" "$NGINX_URL" \
    >"$out" 2>&1 || { cat "$out" >&2; die "wrk failed ($s, c=$c)"; }
  n1="$(cpu_ticks $NGINX_PIDS)"
  python3 - "$out" "$(<"$WORK/cpu.out")" "$((n1 - n0))" "$CLK_TCK" "$s" "$c" "$r" >>"$RUNS" <<'EOF'
import json, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("WRKJSON "))
w = json.loads(line[8:])
e = w["errors"]
if e["status"] or e["read"] or e["connect"] or e["timeout"]:
    sys.exit("wrk errors: %s" % e)
tck = int(sys.argv[4])
print(json.dumps({"client": "wrk", "size": sys.argv[5], "conns": int(sys.argv[6]), "round": int(sys.argv[7]),
                  "bytes": w["bytes"], "secs": w["duration_us"] / 1e6, "requests": w["requests"],
                  "client_cpu_s": int(sys.argv[2]) / tck, "nginx_cpu_s": int(sys.argv[3]) / tck}))
EOF
}

run_loader_once() { # SIZE CONNS ROUND
  local s="$1" c="$2" r="$3" out n0 n1
  out="$WORK/out/loader-$s-$c-$r.json"
  n0="$(cpu_ticks $NGINX_PIDS)"
  # shellcheck disable=SC2086 # options
  cpu_of java $GRANARY_JAVA_OPTS -jar "$WORK/dist/granary.jar" load --protocol http --endpoint "$NGINX_URL/$s" \
    --names "$WORK/names-$s.txt" --workers "$c" --duration "${SECONDS_PER_RUN}s" --interval 0 --json "$out" \
    >"$out.txt" 2>&1 || { cat "$out.txt" >&2; die "granary load failed ($s, c=$c)"; }
  n1="$(cpu_ticks $NGINX_PIDS)"
  python3 - "$out" "$(<"$WORK/cpu.out")" "$((n1 - n0))" "$CLK_TCK" "$s" "$c" "$r" >>"$RUNS" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["get"]
if g["errors"]:
    sys.exit("granary load: %d GET errors" % g["errors"])
tck = int(sys.argv[4])
print(json.dumps({"client": "granary-load", "size": sys.argv[5], "conns": int(sys.argv[6]), "round": int(sys.argv[7]),
                  "bytes": g["bytes"], "secs": d["duration_s"], "requests": g["count"],
                  "client_cpu_s": int(sys.argv[2]) / tck, "nginx_cpu_s": int(sys.argv[3]) / tck}))
EOF
}

for ((r = 1; r <= ROUNDS; r++)); do
  for s in $SIZES; do
    for c in $CONCURRENCY; do
      if ((r % 2)); then order="wrk loader"; else order="loader wrk"; fi
      for who in $order; do
        log "round $r/$ROUNDS $s c=$c: $who"
        "run_${who}_once" "$s" "$c" "$r"
      done
    done
  done
done
LOAD_END="$(cut -d' ' -f1 /proc/loadavg)"

# ------------------------------------------------------------------------------------------------ summary
ts="$(date -u +%Y%m%dT%H%M%SZ)"
python3 - "$RUNS" "$LOAD_START" "$LOAD_END" "$(nproc)" "$(git -C "$repo" rev-parse --short HEAD)" \
  "$("$WRK_BIN" -v 2>&1 | head -1)" "$("$NGINX_BIN" -v 2>&1)" <<'EOF' | tee "$results_dir/loader-$ts.json"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
MiB, GiB = 1 << 20, 1 << 30
out = {}
for key in sorted({(r["size"], r["conns"]) for r in runs}, key=lambda k: (k[0], k[1])):
    row = {}
    for client in ("wrk", "granary-load"):
        rs = [r for r in runs if (r["size"], r["conns"]) == key and r["client"] == client]
        row[client] = {
            "mib_s": round(statistics.median(r["bytes"] / MiB / r["secs"] for r in rs), 1),
            "mib_s_each": [round(r["bytes"] / MiB / r["secs"], 1) for r in rs],
            "client_cpu_s_per_gib": round(statistics.median(r["client_cpu_s"] / (r["bytes"] / GiB) for r in rs), 3),
            "nginx_cpu_s_per_gib": round(statistics.median(r["nginx_cpu_s"] / (r["bytes"] / GiB) for r in rs), 3),
            "requests_per_s": round(statistics.median(r["requests"] / r["secs"] for r in rs)),
        }
    row["ratio_loader_to_wrk"] = round(row["granary-load"]["mib_s"] / row["wrk"]["mib_s"], 3)
    row["cpu_ratio_loader_to_wrk"] = round(row["granary-load"]["client_cpu_s_per_gib"]
                                           / row["wrk"]["client_cpu_s_per_gib"], 2)
    row["goal_ratio"] = 0.9
    row["meets_goal"] = row["ratio_loader_to_wrk"] >= 0.9
    out["%s c=%d" % key] = row
print(json.dumps({"bench": "loader", "what": "granary load --protocol http vs wrk, same nginx and files (page cache), "
                  "interleaved rounds, medians; CPU from /proc (user+system) of each client and of nginx",
                  "cores": int(sys.argv[4]), "granary_git": sys.argv[5], "wrk": sys.argv[6], "nginx": sys.argv[7],
                  "load_avg_start": float(sys.argv[2]), "load_avg_end": float(sys.argv[3]), "runs": out}, indent=2))
EOF
