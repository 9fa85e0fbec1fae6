#!/usr/bin/env bash
# Data protection benchmark: what each protection costs, on one local cluster (granary local, TARGETS targets with
# two mountpaths each) and the same objects, PUT by granary load through the proxy into three buckets:
#   none     no protection: the reference
#   mirror2  mirror.copies=2 (a second copy on another mountpath of the owner)
#   ec42     ec.data=4 ec.parity=2 (4+2 slices on the next 6 targets; objects below ec.objSizeLimit get 2 replicas)
# Interleaved: each round PUTs every size into every bucket, the order rotating between rounds; medians over ROUNDS.
#
# Per scheme and size:
#   put_mib_s        what clients see: bytes PUT over the load's duration (copies and slices follow the answer)
#   protected_mib_s  bytes PUT over the load's duration plus the wait after it until every copy or slice was made
#                    (the queue depth back to 0 on every target and the counters advanced by the objects PUT)
#   ratio_*          against none (goals: mirror2 PUT >= 0.8, ec42 PUT >= 0.6 at 64 MiB)
# Then: storage on disk per bucket against the bytes stored (overhead), and for ec42 the GET of an object whose
# main copy was deleted (rebuilt from slices before it is served) against the GET of the same object intact.
#
# Prints one JSON document on stdout and writes it to bench/results/protection-<timestamp>.json.
# Progress goes to stderr. Run it on an otherwise idle machine: the loader and every node share the cores.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ------------------------------------------------------------------------------------------------ parameters
SIZES="${SIZES:-1MiB 64MiB}"              # object sizes (granary load --min-size/--max-size)
COUNT_1MiB="${COUNT_1MiB:-256}"           # objects PUT per bucket and round at 1 MiB
COUNT_64MiB="${COUNT_64MiB:-12}"          # objects PUT per bucket and round at 64 MiB
SCHEMES="${SCHEMES:-none mirror2 ec42}"   # buckets compared; none is the reference
ROUNDS="${ROUNDS:-3}"                     # rounds; medians reported
PUT_WORKERS="${PUT_WORKERS:-4}"           # parallel PUTs (granary load --workers)
REBUILDS="${REBUILDS:-3}"                 # ec42 objects of the largest size whose rebuild GET is timed (0: none)
PROTECT_TIMEOUT="${PROTECT_TIMEOUT:-900}" # seconds the copies or slices of one load may take before the run fails
TARGETS="${TARGETS:-7}"                   # EC 4+2 needs at least 7
GRANARY_ARGS="${GRANARY_ARGS:-}"          # extra flags for granary local
GRANARY_JAVA_OPTS="${GRANARY_JAVA_OPTS:-}" # JVM options of granary local and the loader
START_TIMEOUT="${START_TIMEOUT:-240}"     # seconds to wait for the local cluster
BUILD="${BUILD:-auto}"                    # auto: ./granary builds if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                         # 1: keep the work dir (cluster data, node logs, loader output)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[protection %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[protection] ERROR: %s\n' "$*" >&2; exit 1; }

for v in ROUNDS PUT_WORKERS REBUILDS PROTECT_TIMEOUT TARGETS START_TIMEOUT KEEP; do
  is_uint "${!v}" || die "$v must be a non-negative integer, got '${!v}'"
done
((ROUNDS >= 1 && PUT_WORKERS >= 1)) || die "ROUNDS and PUT_WORKERS must be at least 1"
((KEEP <= 1)) || die "KEEP must be 0 or 1, got '$KEEP'"
[[ -n "${SIZES// /}" ]] || die "SIZES is empty"
for s in $SIZES; do
  [[ " 1MiB 64MiB " == *" $s "* ]] || die "unknown size '$s' in SIZES (1MiB 64MiB)"
  c="COUNT_$s"
  is_uint "${!c}" && ((${!c} >= 1)) || die "$c must be at least 1, got '${!c}'"
done
[[ " $SCHEMES " == *" none "* ]] || die "SCHEMES must include none, the reference (got '$SCHEMES')"
for s in $SCHEMES; do
  [[ " none mirror2 ec42 " == *" $s "* ]] || die "unknown scheme '$s' in SCHEMES (none mirror2 ec42)"
done
[[ " $SCHEMES " != *" ec42 "* ]] || ((TARGETS >= 7)) || die "ec42 needs TARGETS >= 7 (the owner and 6 slice holders)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-protection.XXXXXX")"
mkdir -p "$WORK/out" "$results_dir"
GRANARY_PID=""
cleanup() {
  local rc=$?
  stop_pid "$GRANARY_PID" TERM 30
  end_run "$rc" "$WORK" "$KEEP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

GRANARY_PORT="$(free_ports $((TARGETS + 1)))" || die "no free ports"
PROXY_URL="http://127.0.0.1:$GRANARY_PORT"
ensure_granary_dist
mkdir -p "$WORK/dist"
cp -r "$repo/cli/target/granary.jar" "$repo/cli/target/lib" "$WORK/dist/"
granary() { java ${GRANARY_JAVA_OPTS:-} -jar "$WORK/dist/granary.jar" "$@"; }
now() { date +%s.%N; }

LOAD_START="$(cut -d' ' -f1 /proc/loadavg)"
start_granary_local
mapfile -t TARGET_URLS < <(curl -sf "$PROXY_URL/v1/cluster/map" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["targets"].values():
    print(t["url"])') || die "cannot read the cluster map"

metric_sum() { # metric_sum NAME...: the sum over every target of the named metrics (0 when absent)
  local u total=0 v
  for u in "${TARGET_URLS[@]}"; do
    v="$(curl -sf "$u/metrics" | awk -v names=" $* " '{n = $1; sub(/\{.*/, "", n)} index(names, " " n " ") {s += $2}
      END {printf "%.0f\n", s}')" || v=0
    total=$((total + v))
  done
  echo "$total"
}

props() {
  case "$1" in
    none) echo '{}' ;;
    mirror2) echo '{"protection":{"mirror.copies":2}}' ;;
    ec42) echo '{"protection":{"ec.data":4,"ec.parity":2}}' ;;
  esac
}
for s in $SCHEMES; do
  code="$(curl -s -o "$WORK/out/bucket.out" -w '%{http_code}' -X POST "$PROXY_URL/v1/buckets/prot-$s" -d "$(props "$s")")"
  [[ "$code" =~ ^2 ]] || { cat "$WORK/out/bucket.out" >&2; die "creating bucket prot-$s answered HTTP $code"; }
done

# made SCHEME: copies or slices made so far, over every target; queued SCHEME: what is still waiting
made() {
  case "$1" in
    mirror2) metric_sum granary_mirror_copies_made_total ;;
    ec42) metric_sum granary_ec_objects_encoded_total granary_ec_objects_replicated_total ;;
    *) echo 0 ;;
  esac
}
queued() {
  case "$1" in
    mirror2) metric_sum granary_mirror_queue_depth ;;
    ec42) metric_sum granary_ec_queue_depth ;;
    *) echo 0 ;;
  esac
}

# one_load SCHEME SIZE ROUND: PUTs the size's objects into bucket prot-SCHEME, waits for their protection, and
# appends "scheme size round put_bytes put_secs protected_secs" to $WORK/out/results.txt
one_load() {
  local scheme="$1" size="$2" round="$3" count out made0 t1 t2 bytes secs
  count="COUNT_$size"; count="${!count}"
  out="$WORK/out/load-$scheme-$size-$round.json"
  made0="$(made "$scheme")"
  granary load --endpoint "$PROXY_URL" --bucket "prot-$scheme" --pct-put 100 --max-puts "$count" --duration 0 \
    --min-size "$size" --max-size "$size" --workers "$PUT_WORKERS" --interval 0 --seed 1 --json "$out" \
    >"$out.txt" 2>&1 || { cat "$out.txt" >&2; die "granary load (PUT $count x $size into prot-$scheme) failed"; }
  t1="$(now)"
  if [[ "$scheme" != none ]]; then
    local deadline=$(( $(date +%s) + PROTECT_TIMEOUT ))
    while (($(date +%s) < deadline)); do
      (( $(queued "$scheme") == 0 )) && (( $(made "$scheme") - made0 >= count )) && break
      sleep 0.1
    done
    (($(date +%s) < deadline)) || die "prot-$scheme $size round $round: not protected within ${PROTECT_TIMEOUT}s"
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
  python3 -c "import sys; a = sys.argv; print(*a[1:6], float(a[5]) + float(a[7]) - float(a[6]))" \
    "$scheme" "$size" "$round" "$bytes" "$secs" "$t1" "$t2" >>"$WORK/out/results.txt"
  log "round $round $size $scheme: $bytes bytes PUT in ${secs}s, protected $(python3 -c "print(round($t2 - $t1, 2))")s after"
}

: >"$WORK/out/results.txt"
read -r -a order <<<"$SCHEMES"
for ((r = 1; r <= ROUNDS; r++)); do
  for size in $SIZES; do
    for ((i = 0; i < ${#order[@]}; i++)); do # rotate the order: each scheme goes first in some round
      one_load "${order[(i + r - 1) % ${#order[@]}]}" "$size" "$r"
    done
  done
done

# ------------------------------------------------------------------------------------------------ storage overhead
: >"$WORK/out/storage.txt"
for s in $SCHEMES; do
  # every file under a directory named after the bucket, on every target's mountpaths: objects, mirror copies and
  # the slices and replicas other targets hold
  physical="$(find "$WORK/granary" -type f -path "*/prot-$s/*" -printf '%s\n' | awk '{t += $1} END {printf "%.0f\n", t}')"
  # what the bucket stores: its objects' sizes as listed (later loads overwrite earlier ones of the same names)
  logical="$(curl -sf "$PROXY_URL/v1/buckets/prot-$s?limit=10000" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if d.get("token"):
    sys.exit("more than one listing page")
print(sum(e["size"] for e in d["entries"]))')" || die "cannot list bucket prot-$s"
  echo "$s $logical $physical" >>"$WORK/out/storage.txt"
done

# ------------------------------------------------------------------------------------------------ rebuild GET
: >"$WORK/out/rebuild.txt"
if [[ " $SCHEMES " == *" ec42 "* ]] && ((REBUILDS > 0)); then
  big="${SIZES##* }"
  mapfile -t names < <(curl -sf "$PROXY_URL/v1/buckets/prot-ec42?prefix=" | python3 -c '
import json, sys
entries = [e for e in json.load(sys.stdin)["entries"] if e.get("size", 0) >= int(sys.argv[1])]
for e in entries[:int(sys.argv[2])]:
    print(e["name"])' "$(( ${big%MiB} << 20 ))" "$REBUILDS")
  ((${#names[@]} > 0)) || die "no objects listed in prot-ec42"
  get_secs() { # get_secs NAME OUT: seconds of one GET through the proxy's 307
    local code secs
    read -r code secs < <(curl -s -L -o "$2" -w '%{http_code} %{time_total}\n' "$PROXY_URL/v1/objects/prot-ec42/$1")
    [[ "$code" == 200 ]] || die "GET prot-ec42/$1 answered HTTP $code"
    echo "$secs"
  }
  rebuilds0="$(metric_sum granary_ec_rebuilds_total)"
  for n in "${names[@]}"; do
    normal="$(get_secs "$n" "$WORK/out/intact.bin")"
    h="$(printf '%s' "$n" | sha256sum | cut -d' ' -f1)"
    mapfile -t mains < <(find "$WORK/granary" -type f -path "*/objects/ais/prot-ec42/*" -name "$h")
    ((${#mains[@]} == 1)) || die "expected one main copy of $n on disk, found ${#mains[@]}"
    rm -f "${mains[0]}"
    rebuilt="$(get_secs "$n" "$WORK/out/rebuilt.bin")"
    cmp -s "$WORK/out/intact.bin" "$WORK/out/rebuilt.bin" || die "the rebuilt $n differs from the intact one"
    after="$(get_secs "$n" "$WORK/out/after.bin")"
    echo "$n $(stat -c %s "$WORK/out/intact.bin") $normal $rebuilt $after" >>"$WORK/out/rebuild.txt"
    log "GET $n: intact ${normal}s, rebuilt ${rebuilt}s, then ${after}s"
  done
  (( $(metric_sum granary_ec_rebuilds_total) - rebuilds0 >= ${#names[@]} )) \
    || die "granary_ec_rebuilds_total did not count the rebuilds"
fi
LOAD_END="$(cut -d' ' -f1 /proc/loadavg)"

# ------------------------------------------------------------------------------------------------ summary
ts="$(date -u +%Y%m%dT%H%M%SZ)"
python3 - "$WORK/out" "$ROUNDS" "$PUT_WORKERS" "$TARGETS" "$LOAD_START" "$LOAD_END" "$(nproc)" \
  "$(git -C "$repo" rev-parse --short HEAD)" <<'EOF' | tee "$results_dir/protection-$ts.json"
import json, os, statistics, sys
out, rounds, workers, targets = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
MiB = 1 << 20
rows = [l.split() for l in open(os.path.join(out, "results.txt")) if l.strip()]
by = {}
for scheme, size, rnd, b, secs, protected in rows:
    by.setdefault((size, scheme), []).append((int(b), float(secs), float(protected)))
sizes = {}
for (size, scheme), runs in sorted(by.items()):
    sizes.setdefault(size, {})[scheme] = {
        "put_mib_s": round(statistics.median(b / MiB / s for b, s, _ in runs), 1),
        "protected_mib_s": round(statistics.median(b / MiB / p for b, _, p in runs), 1),
        "put_mib_s_each": [round(b / MiB / s, 1) for b, s, _ in runs]}
goals = {"mirror2": 0.8, "ec42": 0.6}
for size, v in sizes.items():
    for scheme in ("mirror2", "ec42"):
        if scheme in v and "none" in v:
            v[scheme]["ratio_put"] = round(v[scheme]["put_mib_s"] / v["none"]["put_mib_s"], 3)
            v[scheme]["ratio_protected"] = round(v[scheme]["protected_mib_s"] / v["none"]["protected_mib_s"], 3)
            v[scheme]["goal_put_ratio"] = goals[scheme]
storage = {}
for l in open(os.path.join(out, "storage.txt")):
    s, logical, physical = l.split()
    storage[s] = {"logical_bytes": int(logical), "on_disk_bytes": int(physical),
                  "overhead": round(int(physical) / int(logical), 3) if int(logical) else None}
rebuild = []
for l in open(os.path.join(out, "rebuild.txt")):
    n, size, normal, rebuilt, after = l.split()
    rebuild.append({"name": n, "bytes": int(size), "intact_s": float(normal), "rebuilt_s": float(rebuilt),
                    "after_s": float(after)})
rb = None
if rebuild:
    intact = statistics.median(r["bytes"] / MiB / r["intact_s"] for r in rebuild)
    rebuilt = statistics.median(r["bytes"] / MiB / r["rebuilt_s"] for r in rebuild)
    rb = {"objects": rebuild, "intact_mib_s": round(intact, 1), "rebuilt_mib_s": round(rebuilt, 1),
          "ratio": round(rebuilt / intact, 3)}
print(json.dumps({"bench": "protection", "what": "PUT throughput per protection scheme (granary local, granary load "
                  "through the proxy; medians of interleaved rounds), storage on disk, and the GET of an erasure-coded "
                  "object whose main copy was deleted",
                  "granary_git": sys.argv[8], "targets": targets, "rounds": rounds, "put_workers": workers,
                  "cores": int(sys.argv[7]), "load_avg_start": float(sys.argv[5]), "load_avg_end": float(sys.argv[6]),
                  "put": sizes, "storage": storage, "rebuild_get": rb}, indent=2))
EOF
