#!/usr/bin/env bash
# Mirroring benchmark: PUT throughput into a bucket with mirror.copies=2 against one with mirror.copies=1, on the
# same cluster (granary local, one target with its two mountpaths) and the same objects (1 MiB and 64 MiB, PUT by
# granary load through the proxy). Interleaved: each round PUTs every size into both buckets, the order alternating
# between rounds; medians over ROUNDS rounds, and the ratio copies2/copies1 (goal >= 0.8).
#
# Two figures per bucket and size:
#   put_mib_s        what clients see: bytes PUT over the load's duration (the copy follows the answer)
#   protected_mib_s  bytes PUT over the load's duration plus the wait after it until the last copy was made
#                    (granary_mirror_queue_depth back to 0 and granary_mirror_copies_made_total advanced by the
#                    objects PUT): the disk bandwidth the copies really cost. For copies=1 it is put_mib_s.
#
# Prints one JSON document on stdout and writes it to bench/results/mirror-<timestamp>.json.
# Progress goes to stderr. Run it on an otherwise idle machine: the loader and the target share the cores.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
SIZES="${SIZES:-1MiB 64MiB}"              # object sizes (granary load --min-size/--max-size)
COUNT_1MiB="${COUNT_1MiB:-512}"           # objects PUT per bucket and round at 1 MiB
COUNT_64MiB="${COUNT_64MiB:-16}"          # objects PUT per bucket and round at 64 MiB
ROUNDS="${ROUNDS:-3}"                     # rounds; medians reported
PUT_WORKERS="${PUT_WORKERS:-4}"           # parallel PUTs (granary load --workers)
COPY_TIMEOUT="${COPY_TIMEOUT:-600}"       # seconds the copies of one load may take before the run fails
GRANARY_ARGS="${GRANARY_ARGS:-}"          # extra flags for granary local
GRANARY_JAVA_OPTS="${GRANARY_JAVA_OPTS:-}" # JVM options of granary local and the loader
START_TIMEOUT="${START_TIMEOUT:-180}"     # seconds to wait for the local cluster
BUILD="${BUILD:-auto}"                    # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                         # 1: keep the work dir (cluster data, node logs, loader output)
TARGETS=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[mirror %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[mirror] ERROR: %s\n' "$*" >&2; exit 1; }

for v in ROUNDS PUT_WORKERS COPY_TIMEOUT START_TIMEOUT KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((ROUNDS >= 1)) || die "ROUNDS must be at least 1"
((PUT_WORKERS >= 1)) || die "PUT_WORKERS must be at least 1"
((KEEP <= 1)) || die "KEEP must be 0 or 1, got '$KEEP'"
[[ -n "${SIZES// /}" ]] || die "SIZES is empty"
for s in $SIZES; do
  [[ " 1MiB 64MiB " == *" $s "* ]] || die "unknown size '$s' in SIZES (1MiB 64MiB)"
  c="COUNT_$s"
  is_uint "${!c}" && ((${!c} >= 1)) || die "$c must be at least 1, got '${!c}'"
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-mirror.XXXXXX")"
mkdir -p "$WORK/out" "$results_dir"
GRANARY_PID=""
cleanup() {
  local rc=$?
  stop_pid "$GRANARY_PID" TERM 30
  end_run "$rc" "$WORK" "$KEEP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The proxy's port and the next (the target's), below the ephemeral range (free_ports, lib.sh).
GRANARY_PORT="$(free_ports 2)" || die "no free ports"
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
granary() { java ${GRANARY_JAVA_OPTS:-} -jar "$WORK/dist/granary.jar" "$@"; }
now() { date +%s.%N; }

LOAD_START="$(cut -d' ' -f1 /proc/loadavg)"
start_granary_local
TARGET_URL="$(curl -sf "$PROXY_URL/v1/cluster/map" | python3 -c '
import json, sys
print(next(iter(json.load(sys.stdin)["targets"].values()))["url"])')" || die "no target in the cluster map"

metric() { # metric NAME: the target's value of NAME (0 when absent)
  curl -sf "$TARGET_URL/metrics" | awk -v n="$1" '$1 == n || index($1, n "{") == 1 {v = $2} END {printf "%d\n", v}'
}

for copies in 1 2; do
  code="$(curl -s -o "$WORK/out/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/mirror-$copies" \
    -d "{\"protection\":{\"mirror.copies\":$copies}}")"
  [[ "$code" =~ ^2 ]] || { cat "$WORK/out/bucket.out" >&2; die "creating bucket mirror-$copies answered HTTP $code"; }
done

# one_load COPIES SIZE ROUND: PUTs the size's objects into bucket mirror-COPIES, waits for their copies, and appends
# "copies size round put_bytes put_secs protected_secs" to $WORK/out/results.txt
one_load() {
  local copies="$1" size="$2" round="$3" count out made0 t1 t2 bytes secs
  count="COUNT_$size"; count="${!count}"
  out="$WORK/out/load-$copies-$size-$round.json"
  made0="$(metric granary_mirror_copies_made_total)"
  granary load --endpoint "$PROXY_URL" --bucket "mirror-$copies" --pct-put 100 --max-puts "$count" --duration 0 \
    --min-size "$size" --max-size "$size" --workers "$PUT_WORKERS" --interval 0 --seed 1 --json "$out" \
    >"$out.txt" 2>&1 || { cat "$out.txt" >&2; die "granary load (PUT $count x $size into mirror-$copies) failed"; }
  t1="$(now)"
  if ((copies > 1)); then
    local deadline=$(( $(date +%s) + COPY_TIMEOUT ))
    while (($(date +%s) < deadline)); do
      (( $(metric granary_mirror_queue_depth) == 0 )) \
        && (( $(metric granary_mirror_copies_made_total) - made0 >= count * (copies - 1) )) && break
      sleep 0.1
    done
    (($(date +%s) < deadline)) || die "the copies of mirror-$copies $size round $round were not made in ${COPY_TIMEOUT}s"
  fi
  t2="$(now)"
  read -r bytes secs < <(python3 - "$out" "$count" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["put"]
if p["count"] != int(sys.argv[2]) or p["errors"]:
    sys.exit("PUT %d of %s objects, %d errors" % (p["count"], sys.argv[2], p["errors"]))
print(p["bytes"], d["duration_s"])
EOF
  ) || die "granary load did not PUT every object (see $out.txt)"
  # protected: the load's own duration (without the loader's start) plus the wait for the copies after it ended
  python3 -c "import sys; a = sys.argv; print(*a[1:6], float(a[5]) + float(a[7]) - float(a[6]))" \
    "$copies" "$size" "$round" "$bytes" "$secs" "$t1" "$t2" >>"$WORK/out/results.txt"
  log "round $round $size copies=$copies: $bytes bytes PUT in ${secs}s, copies made $(python3 -c "print(round($t2 - $t1, 2))")s after"
}

: >"$WORK/out/results.txt"
for ((r = 1; r <= ROUNDS; r++)); do
  for size in $SIZES; do
    if ((r % 2)); then order="1 2"; else order="2 1"; fi
    for copies in $order; do
      one_load "$copies" "$size" "$r"
    done
  done
done
LOAD_END="$(cut -d' ' -f1 /proc/loadavg)"

ts="$(date -u +%Y%m%dT%H%M%SZ)"
python3 - "$WORK/out/results.txt" "$ROUNDS" "$PUT_WORKERS" "$LOAD_START" "$LOAD_END" "$(nproc)" <<'EOF' \
  | tee "$results_dir/mirror-$ts.json"
import json, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
MiB = 1 << 20
by = {}
for copies, size, rnd, b, secs, protected in rows:
    by.setdefault((size, int(copies)), []).append((int(b), float(secs), float(protected)))
sizes = {}
for (size, copies), runs in sorted(by.items()):
    put = statistics.median(b / MiB / s for b, s, _ in runs)
    prot = statistics.median(b / MiB / p for b, _, p in runs)
    sizes.setdefault(size, {})["copies%d" % copies] = {
        "put_mib_s": round(put, 1), "protected_mib_s": round(prot, 1), "rounds": len(runs),
        "put_mib_s_each": [round(b / MiB / s, 1) for b, s, _ in runs]}
for size, v in sizes.items():
    if "copies1" in v and "copies2" in v:
        v["ratio_put"] = round(v["copies2"]["put_mib_s"] / v["copies1"]["put_mib_s"], 3)
        v["ratio_protected"] = round(v["copies2"]["protected_mib_s"] / v["copies1"]["protected_mib_s"], 3)
        v["goal_put_ratio"] = 0.8
        v["meets_goal"] = v["ratio_put"] >= 0.8
print(json.dumps({"bench": "mirror", "what": "PUT throughput, mirror.copies=2 vs 1, one target with two mountpaths "
                  "(granary local), granary load through the proxy; medians of interleaved rounds",
                  "rounds": int(sys.argv[2]), "put_workers": int(sys.argv[3]), "cores": int(sys.argv[6]),
                  "load_avg_start": float(sys.argv[4]), "load_avg_end": float(sys.argv[5]), "sizes": sizes},
                 indent=2))
EOF
