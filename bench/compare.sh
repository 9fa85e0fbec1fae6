#!/usr/bin/env bash
# The standard comparison on this machine, one command: warm GET (bench/warm-get.sh: 150 KiB, 1 MiB, 10 MiB; 1 to
# 128 connections; direct to the target, S3 through the proxy, the native 307, against nginx serving the same
# files), cold GET against direct reads of the backend (bench/cold-get.sh: the backend across a modelled network,
# where the goals are judged, and on loopback), and the MLPerf ResNet-50 accelerator search fed by Granary and by
# nginx (bench/mlperf-resnet50.sh).
#
# Writes bench/results/compare-<timestamp>.{json,md,log}; after a complete full run also bench/compare-latest.json,
# bench/compare-latest.md and the marked section of bench/README.md. Prints the JSON on stdout, progress on stderr.
# See bench/README.md for the knobs.
set -euo pipefail

# ------------------------------------------------------------------------------------------------ parameters
# The knobs given in the environment (before the defaults below), for the command line the report shows.
GIVEN="$(for v in QUICK PARTS BUILD KEEP UPDATE_LATEST TARGETS GRANARY_ARGS START_TIMEOUT BUCKET \
  $(compgen -e | grep -E '^(WARM|COLD|COLDNET|MLPERF)_' | sort || true); do [[ ! -v $v ]] || echo "$v"; done)"
QUICK="${QUICK:-0}"                  # 1: a smoke run of the whole pipeline in a few minutes (numbers mean nothing)
PARTS="${PARTS:-warm coldnet cold mlperf}" # which benchmarks run
BUILD="${BUILD:-auto}"               # auto: ./granary builds once if sources changed; 0: use cli/target as it is
KEEP="${KEEP:-0}"                    # 1: keep every work dir (passed to the parts)
UPDATE_LATEST="${UPDATE_LATEST:-auto}" # auto: after a full run of every part that all succeeded; 1: always; 0: never
RENDER_FROM="${RENDER_FROM:-}"       # a compare JSON: render its markdown (and the latest files) without running

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
repo="$(cd "$here/.." && pwd)"
results_dir="$here/results"

log() { printf '[compare %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[compare] ERROR: %s\n' "$*" >&2; exit 1; }

# Each part's own knobs, set here with the part's prefix (WARM_DURATION=5 runs warm-get.sh with DURATION=5): the
# parts share names (CONCURRENCY, ROUNDS, WARMUP) that mean different things. KIND:NAME; kinds: u = integer >= 0,
# p = integer >= 1, l = list of integers >= 1, s = any string, w:a,b,c = words from the list.
warm_knobs="w:granary,s3,redirect,nginx:SERVERS u:COUNT_150K u:COUNT_1M u:COUNT_10M l:CONCURRENCY p:DURATION
  u:WARMUP p:WARMUP_CONNECTIONS p:MAX_THREADS s:WRK_TIMEOUT"
cold_knobs="p:COUNT p:SIZE_MIB p:TTFB_SIZE_MIB l:CONCURRENCY p:ROUNDS p:TTFB_REPS u:WARMUP u:WARMUP_SMALL
  u:LINK_MBIT u:REMOTE_DELAY_MS u:NGINX s:S3PROXY_JVM_OPTS p:CURL_TIMEOUT"
mlperf_knobs="p:MAX_ACCELERATORS p:STEPS p:SAMPLES_PER_FILE p:FILES p:EPOCHS p:ROUNDS p:START p:READ_THREADS
  w:native,direct,nginx:SOURCES u:WARMUP u:SEED p:GEN_WORKERS s:LOADER_JVM_OPTS"
# QUICK=1: what each part runs with unless its prefixed knob says otherwise.
quick_warm="COUNT_150K=8 COUNT_1M=4 COUNT_10M=2 CONCURRENCY=1,8 DURATION=2 WARMUP=1"
quick_cold="COUNT=4 SIZE_MIB=16 TTFB_SIZE_MIB=32 ROUNDS=1 TTFB_REPS=1 WARMUP_SMALL=20"
quick_mlperf="MAX_ACCELERATORS=2 STEPS=2 SAMPLES_PER_FILE=100 EPOCHS=1 ROUNDS=2"
# coldnet is cold-get.sh with the remote behind a link and a first-byte latency (tc and a relay; root or sudo), as
# S3 or GCS is from a cluster: the setting the cold goals are meant for. cold is the same script on loopback, where
# every byte costs CPU on the same cores as S3Proxy's (see bench/README.md, "cold-get.sh").
coldnet_defaults="LINK_MBIT=2000 REMOTE_DELAY_MS=20"
ALL_PARTS="warm coldnet cold mlperf"

part_script() { case "$1" in warm) echo warm-get.sh ;; cold|coldnet) echo cold-get.sh ;; mlperf) echo mlperf-resnet50.sh ;; esac; }
part_prefix() { case "$1" in warm) echo WARM ;; cold) echo COLD ;; coldnet) echo COLDNET ;; mlperf) echo MLPERF ;; esac; }
part_knobs() { case "$1" in warm) echo "$warm_knobs" ;; cold|coldnet) echo "$cold_knobs" ;; mlperf) echo "$mlperf_knobs" ;; esac; }
part_quick() { case "$1" in warm) echo "$quick_warm" ;; cold|coldnet) echo "$quick_cold" ;; mlperf) echo "$quick_mlperf" ;; esac; }
part_defaults() { case "$1" in coldnet) echo "$coldnet_defaults" ;; esac; }
knob_name() { echo "${1##*:}"; }

check_value() { # kind name value
  local kind="$1" name="$2" v="$3" x
  case "$kind" in
    u) [[ "$v" =~ ^[0-9]+$ ]] || die "$name must be a non-negative integer, got '$v'" ;;
    p) [[ "$v" =~ ^[0-9]+$ ]] && ((10#$v >= 1)) || die "$name must be a positive integer, got '$v'" ;;
    l) [[ -n "${v// /}" ]] || die "$name is empty"
       for x in $v; do [[ "$x" =~ ^[0-9]+$ ]] && ((10#$x >= 1)) || die "$name must list positive integers, got '$v'"; done ;;
    w:*) [[ -n "${v// /}" ]] || die "$name is empty"
       for x in $v; do [[ ",${kind#w:}," == *",$x,"* ]] || die "$name: unknown '$x' (one of: ${kind#w:})"; done ;;
    s) ;;
  esac
}

[[ "$QUICK" == 0 || "$QUICK" == 1 ]] || die "QUICK must be 0 or 1, got '$QUICK'"
[[ "$BUILD" == auto || "$BUILD" == 0 ]] || die "BUILD must be auto or 0, got '$BUILD'"
[[ "$KEEP" == 0 || "$KEEP" == 1 ]] || die "KEEP must be 0 or 1, got '$KEEP'"
[[ "$UPDATE_LATEST" =~ ^(auto|0|1)$ ]] || die "UPDATE_LATEST must be auto, 0 or 1, got '$UPDATE_LATEST'"
[[ -n "${PARTS// /}" ]] || die "PARTS is empty"
for p in $PARTS; do
  [[ " $ALL_PARTS " == *" $p "* ]] || die "unknown part '$p' in PARTS ($ALL_PARTS)"
done
[[ -z "$RENDER_FROM" || -f "$RENDER_FROM" ]] || die "RENDER_FROM: no such file '$RENDER_FROM'"
# A part's knob without its prefix is ambiguous here: refuse it rather than guess which part it was meant for.
for part in $ALL_PARTS; do
  for k in $(part_knobs "$part"); do
    n="$(knob_name "$k")"
    if [[ -v $n ]]; then
      die "$n is a knob of bench/$(part_script "$part") (and maybe of another part): set $(part_prefix "$part")_$n for compare.sh"
    fi
    pn="$(part_prefix "$part")_$n"
    [[ ! -v $pn ]] || check_value "${k%:*}" "$pn" "${!pn}"
  done
done
# Prefixed names that are no knob of their part: a typo would otherwise be ignored silently.
for v in $(compgen -v | grep -E '^(WARM|COLD|COLDNET|MLPERF)_' || true); do
  part="$(tr '[:upper:]' '[:lower:]' <<<"${v%%_*}")"
  [[ " $(part_knobs "$part" | tr '\n' ' ' | sed 's/[^ ]*://g') " == *" ${v#*_} "* ]] \
    || die "$v is not a knob of bench/$(part_script "$part") ($(part_knobs "$part" | sed 's/[^ ]*://g' | xargs))"
done
for n in TARGETS START_TIMEOUT; do [[ ! -v $n ]] || check_value p "$n" "${!n}"; done

# part_env PART: the NAME=VALUE words a part runs with (its prefixed knobs, else QUICK's values, else the part's
# defaults here), one per line
part_env() {
  local part="$1" prefix k n pn q found
  prefix="$(part_prefix "$part")"
  for k in $(part_knobs "$part"); do
    n="$(knob_name "$k")"
    pn="${prefix}_$n"
    if [[ -v $pn ]]; then
      printf '%s=%s\n' "$n" "${!pn}"
      continue
    fi
    found=0
    if ((QUICK)); then
      for q in $(part_quick "$part"); do
        [[ "${q%%=*}" != "$n" ]] || { printf '%s=%s\n' "$n" "${q#*=}" | tr ',' ' '; found=1; }
      done
    fi
    if ((!found)); then
      for q in $(part_defaults "$part"); do
        [[ "${q%%=*}" != "$n" ]] || printf '%s=%s\n' "$n" "${q#*=}"
      done
    fi
  done
}

# The command as run: the knobs given in the environment, then the script.
command_line() {
  local out="" v val
  for v in $GIVEN; do
    val="${!v}"
    if [[ ! "$val" =~ ^[A-Za-z0-9_./:,=+@%-]+$ ]]; then
      val="'${val//\'/\'\\\'\'}'" # single quotes, a quote inside as '\''
    fi
    out+="$v=$val "
  done
  echo "${out}bench/compare.sh"
}

# ------------------------------------------------------------------------------------------------ report (python)
# python3 - combine OUT.json | render IN.json OUT.md [README.md]
report() {
  BENCH_DIR="$here" python3 - "$@" <<'EOF'
import datetime, json, os, re, subprocess, sys

sys.path.insert(0, os.environ["BENCH_DIR"])
from hostfacts import host_facts

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip() or None
    except Exception:
        return None

def first_line(text):
    return text.splitlines()[0].strip() if text else None

def read_first(path, prefix):
    try:
        for l in open(path):
            if l.startswith(prefix):
                return l
    except OSError:
        return None

def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None

# ---------------------------------------------------------------- combine
def combine(out):
    E = os.environ
    cwork = E["CMP_WORK"]
    parts = {}
    names = {"warm": "warm_get", "coldnet": "cold_get_network", "cold": "cold_get", "mlperf": "mlperf_resnet50"}
    for p in E["CMP_PARTS"].split():
        status = open(os.path.join(cwork, p + ".status")).read().split()
        rc, secs = int(status[0]), float(status[1])
        entry = {"status": "ok" if rc == 0 else "failed", "exit_code": rc, "seconds": secs,
                 "env": [l for l in open(os.path.join(cwork, p + ".env")).read().splitlines() if l]}
        doc = None
        try:
            with open(os.path.join(cwork, p + ".json")) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            pass
        if rc == 0 and doc is None:
            entry["status"] = "failed"
            entry["error"] = "no JSON on stdout"
        if rc != 0:
            err = [l.strip() for l in open(os.path.join(cwork, p + ".log"), errors="replace") if "ERROR:" in l]
            entry["error"] = err[-1] if err else "exit status %d" % rc
        if doc is not None:
            entry["result_file"] = "bench/results/%s-%s.json" % (doc["benchmark"], doc["timestamp"])
            entry["result"] = doc
        parts[names[p]] = entry

    def result(name):
        e = parts.get(name)
        return e["result"] if e and e["status"] == "ok" else None

    summary = {"goal_warm_1MiB_min_ratio": 0.9, "goal_resnet50_min_ratio": 0.9}
    w = result("warm_get")
    if w:
        paths = {}
        rows = [r for r in w["results"] if r["size"] == "1MiB"]
        for key, get in (("target", lambda r: r.get("ratio_throughput")),
                         ("native_redirect_model", lambda r: (r.get("native_redirect_model") or {}).get("ratio_vs_nginx")),
                         ("s3", lambda r: r.get("ratio_s3_vs_nginx"))):
            per_c = {str(r["concurrency"]): get(r) for r in rows if get(r) is not None}
            if not per_c:
                continue
            vals = list(per_c.values())
            paths[key] = {"ratio_per_concurrency": per_c, "min": min(vals), "max": max(vals),
                          "met_at": sum(1 for v in vals if v >= 0.9), "of": len(vals),
                          "met_all": all(v >= 0.9 for v in vals)}
        summary["warm_1MiB"] = {"paths": paths, "met_on": [k for k, v in paths.items() if v["met_all"]]} if paths else None
    for key, name in (("cold_network", "cold_get_network"), ("cold", "cold_get")):
        c = result(name)
        if c:
            summary[key] = {
                "remote_link_mbit": c["parameters"].get("remote_link_mbit"),
                "remote_delay_ms": c["parameters"].get("remote_delay_ms"),
                "ratio_cold_vs_direct_per_concurrency": {str(r["concurrency"]): r["ratio_cold_vs_direct"]
                                                          for r in c["results"]},
                "ratio_nginx_vs_direct_per_concurrency": {str(r["concurrency"]): r.get("ratio_nginx_vs_direct")
                                                           for r in c["results"]},
                "ttfb_ratio": c["ttfb"]["ratio"],
                "ttfb_ratio_nginx": c["ttfb"].get("ratio_nginx_vs_direct"),
                "goals": c["goals"],
            }
    m = result("mlperf_resnet50")
    if m:
        summary["resnet50"] = m["summary"]
    summary["all_parts_ok"] = all(e["status"] == "ok" for e in parts.values())

    machine = {
        **host_facts(),
        "os": (read_first("/etc/os-release", "PRETTY_NAME=") or "=").split("=", 1)[1].strip().strip('"') or None,
        "java": first_line(sh("java -version 2>&1")),
        "nginx": first_line(sh("$(command -v nginx || echo /usr/sbin/nginx) -v 2>&1")),
        "wrk": first_line(sh("wrk -v 2>&1")),
        "curl": " ".join((first_line(sh("curl --version")) or "").split()[:2]) or None,
        "granary_git": E["CMP_GIT"],
        "granary_jar_built": E["CMP_JAR_MTIME"],
        "loadavg_start": E["CMP_LOADAVG_START"],
        "loadavg_end": " ".join(open("/proc/loadavg").read().split()[:3]),
    }
    doc = {
        "benchmark": "compare",
        "timestamp": E["CMP_STAMP"],
        "started_utc": E["CMP_STARTED"],
        "quick": E["QUICK"] == "1",
        "command": E["CMP_COMMAND"],
        "parts_run": E["CMP_PARTS"].split(),
        "machine": machine,
        "summary": summary,
        "times": {"total_s": float(E["CMP_TOTAL_S"]),
                  **{k + "_s": e["seconds"] for k, e in parts.items()}},
        "parts": parts,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

# ---------------------------------------------------------------- render
def mib(b):
    return "—" if b is None else "{:,.0f}".format(b / 2**20)

def r2(x, bold=False):
    if x is None:
        return "—"
    s = "%.2f" % x
    return "**%s**" % s if bold else s

def n_of(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")

def version(text, pattern):
    m = re.search(pattern, text or "")
    return m.group(1) if m else text

def span(vals):
    lo, hi = min(vals), max(vals)
    return "%.2f" % lo if lo == hi else "%.2f to %.2f" % (lo, hi)

def remote_setting(cs):
    if cs.get("remote_link_mbit"):
        return "remote across a network (%s Mbit/s link%s)" % ("{:,}".format(cs["remote_link_mbit"]),
            ", %d ms to first byte" % cs["remote_delay_ms"] if cs.get("remote_delay_ms") else "")
    return "remote on loopback"

def cold_section(out, c, name, title, what, failed):
    out.append("**%s** (`bench/cold-get.sh`): objects of an S3 bucket (S3Proxy on this machine, %s) read through a "
               "cluster that has not cached them, against reading them straight from S3Proxy with the same client "
               "(curl with SigV4); MiB/s, median of the rounds." % (title, what))
    out.append("")
    if c:
        prm = c["parameters"]
        out.append("%d × %d MiB objects, %s, %s; time to first byte of a %d MiB object, median of %d%s." % (
            prm["count"], prm["object_bytes"] >> 20, n_of(prm["rounds"], "round"), n_of(prm["targets"], "target"),
            prm["ttfb_object_bytes"] >> 20, prm["ttfb_reps"],
            ("; S3Proxy's answers share a %d Mbit/s link" % prm["remote_link_mbit"]
             if prm.get("remote_link_mbit") else "; S3Proxy on loopback, no link limit")
            + ("; first bytes read through a relay adding %d ms" % prm["remote_delay_ms"]
               if prm.get("remote_delay_ms") else "")))
        out.append("")
        out.append("| conc. | direct | cold via Granary | cold / direct | warm via Granary | warm / direct "
                   "| cold via nginx cache | nginx / direct |")
        out.append("|---|---|---|---|---|---|---|---|")
        for r in c["results"]:
            out.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                r["concurrency"], mib(r["direct_bytes_per_sec"]), mib(r["cold_bytes_per_sec"]),
                r2(r["ratio_cold_vs_direct"], True), mib(r["warm_bytes_per_sec"]), r2(r["ratio_warm_vs_direct"]),
                mib(r["nginx_bytes_per_sec"]) if r.get("nginx_bytes_per_sec") else "—",
                r2(r["ratio_nginx_vs_direct"]) if r.get("ratio_nginx_vs_direct") else "—"))
        t = c["ttfb"]
        out.append("")
        out.append("First byte: direct %.1f ms, cold %.1f ms (**%s×**), warm %.1f ms (%s×)%s." % (
            t["direct_s"] * 1e3, t["cold_s"] * 1e3, r2(t["ratio"]), t["warm_s"] * 1e3, r2(t["ratio_warm_vs_direct"]),
            ", cold through nginx's cache %.1f ms (%s×)" % (t["nginx_s"] * 1e3, r2(t["ratio_nginx_vs_direct"]))
            if t.get("nginx_s") else ""))
    else:
        out.append(failed(name, title))
    out.append("")

def render(doc):
    out = []
    mach = doc["machine"]
    parts = doc["parts"]
    started = doc.get("started_utc", doc["timestamp"])
    mins = max(1, round(doc["times"]["total_s"] / 60))
    out.append("`%s`, run %s (%s) at commit %s." % (doc["command"], started, n_of(mins, "minute"), mach["granary_git"]))
    if doc["quick"]:
        out.append("")
        out.append("**QUICK smoke run: tiny sizes and short runs; the numbers only show that the pipeline works.**")
    out.append("")

    def res(name):
        e = parts.get(name)
        return e["result"] if e and e["status"] == "ok" else None

    def failed(name, title):
        e = parts.get(name)
        if e is None:
            return "%s: not run (PARTS)." % title
        err = re.sub(r"^\[[^]]*\] ERROR: ", "", e.get("error", "exit status %s" % e["exit_code"]))
        return "%s: **failed**: %s" % (title, err.rstrip("."))  + "."

    s = doc["summary"]
    # goals
    out.append("| goal | result | met |")
    out.append("|---|---|---|")
    w1 = s.get("warm_1MiB")
    label = {"target": "direct to the target", "native_redirect_model": "native 307 (model)", "s3": "S3 via the proxy"}
    if w1:
        desc = []
        for k, p in w1["paths"].items():
            desc.append("%s %s (%d of %d concurrencies)" % (label[k], span(p["ratio_per_concurrency"].values()),
                                                            p["met_at"], p["of"]))
        met = ("**met** on " + ", ".join(label[k] for k in w1["met_on"])) if w1["met_on"] else "**not met**"
        out.append("| warm 1 MiB GET ≥ 0.9× nginx, every concurrency | %s | %s |" % ("; ".join(desc), met))
    else:
        out.append("| warm 1 MiB GET ≥ 0.9× nginx | not measured | — |")
    rn = s.get("resnet50")
    if rn:
        d = "Granary native (307) %g vs nginx %g accelerators: %s" % (rn["accelerators_granary"],
                                                                    rn["accelerators_nginx"], r2(rn["ratio"]))
        if rn.get("accelerators_granary_direct") is not None:
            d += "; direct to the target %g: %s" % (rn["accelerators_granary_direct"], r2(rn["ratio_direct"]))
        out.append("| ResNet-50 accelerators ≥ 0.9× the nginx-fed figure | %s | %s |"
                   % (d, "**met**" if rn["meets_goal"] else "**not met**"))
    else:
        out.append("| ResNet-50 accelerators ≥ 0.9× the nginx-fed figure | not measured | — |")
    cs = s.get("cold_network")
    if cs:
        g = cs["goals"]
        where = remote_setting(cs)
        out.append("| cold GET throughput ≥ %.2f× direct, %s | %s | %s |" % (
            g["throughput"]["goal_min_ratio"], where,
            ", ".join("c=%s %s" % (k, r2(v)) for k, v in cs["ratio_cold_vs_direct_per_concurrency"].items()),
            "**met**" if g["throughput"]["met"] else "**not met**"))
        out.append("| cold GET first byte ≤ %.1f× direct, %s | %s× | %s |" % (
            g["ttfb"]["goal_max_ratio"], where, r2(cs["ttfb_ratio"]),
            "**met**" if g["ttfb"]["met"] else "**not met**"))
    else:
        out.append("| cold GET vs direct backend reads, remote across a network | not measured | — |")
    cl = s.get("cold")
    if cl:
        nginx = [v for v in cl["ratio_nginx_vs_direct_per_concurrency"].values() if v is not None]
        out.append("| (context, no goal) cold GET, %s: CPU-bound, the cluster and S3Proxy on the same cores | "
                   "throughput %s, first byte %s×; nginx's cache (no checksum) %s, first byte %s× | — |" % (
                       remote_setting(cl),
                       ", ".join("c=%s %s" % (k, r2(v)) for k, v in cl["ratio_cold_vs_direct_per_concurrency"].items()),
                       r2(cl["ttfb_ratio"]), ", ".join(r2(v) for v in nginx) if nginx else "—",
                       r2(cl.get("ttfb_ratio_nginx"))))
    out.append("")

    # warm
    out.append("**Warm GET** (`bench/warm-get.sh`): MiB/s as wrk reads them, files in the page cache; ratios against "
               "nginx serving the same files. The native 307 column is modelled from the redirect and the target's "
               "GET measured apart (wrk cannot follow a 307 to another port).")
    out.append("")
    w = res("warm_get")
    if w:
        prm = w["parameters"]
        out.append("%s s per run, %s s warm-up per size and server, %s; objects: %s." % (
            prm["duration_s"], prm["warmup_s"], n_of(prm["targets"], "target"),
            ", ".join("%d × %s" % (n, k) for k, n in prm["counts"].items() if n)))
        out.append("")
        out.append("| size | conn. | nginx | target direct | S3 via proxy | native 307 (model) | target / nginx "
                   "| S3 / nginx | 307 / nginx | nginx p50 / p99 µs | S3 p50 / p99 µs |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in w["results"]:
            def bps(k):
                return r[k]["bytes_per_sec"] if r.get(k) else None
            def lat(k):
                return "{:,} / {:,}".format(int(r[k]["p50_us"]), int(r[k]["p99_us"])) if r.get(k) else "—"
            model = r.get("native_redirect_model") or {}
            out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["size"], r["concurrency"], mib(bps("nginx")), mib(bps("granary")), mib(bps("s3")),
                mib(model.get("bytes_per_sec")), r2(r.get("ratio_throughput"), True), r2(r.get("ratio_s3_vs_nginx")),
                r2(model.get("ratio_vs_nginx")), lat("nginx"), lat("s3")))
        errs = w["summary"]
        out.append("")
        out.append("wrk errors: target %d, S3 %d, nginx %d; short responses: %d." % (
            errs["granary_errors"], errs["s3_errors"], errs["nginx_errors"], len(w["diagnostics"]["short_responses"])))
    else:
        out.append(failed("warm_get", "Warm GET"))
    out.append("")

    # cold
    for name, title, what in (
            ("cold_get_network", "Cold GET, remote across a network",
             "behind a modelled link and first-byte latency, as S3 or GCS is from a cluster; the cold goals are "
             "judged here"),
            ("cold_get", "Cold GET on loopback",
             "on loopback, sharing the cores with the cluster, so a cold byte's CPU (receive, write, verify, relay) "
             "is set against S3Proxy's serving it from the page cache; nginx's cache, which verifies nothing, shows "
             "what any cache pays here")):
        cold_section(out, res(name), name, title, what, failed)

    # mlperf
    out.append("**ResNet-50 accelerator search** (`bench/mlperf-resnet50.sh`, `granary load --workload resnet50 "
               "--search`): the most emulated H100s that keep AU ≥ 90%, each reading whole files of 114,660-byte "
               "samples, fed by Granary and by nginx serving the same files.")
    out.append("")
    m = res("mlperf_resnet50")
    if m:
        prm = m["parameters"]
        out.append("%d files × %d samples (%s MiB), %d steps per epoch, %s per probe, searches from %d to "
                   "%d accelerators, %s per source (the median is reported), %s." % (
                       prm["files"], prm["samples_per_file"], mib(prm["dataset_bytes"]), prm["steps_per_epoch"],
                       n_of(prm["epochs"], "epoch"), prm["search_start"], prm["max_accelerators"],
                       n_of(prm["rounds"], "round"), n_of(prm["targets"], "target")))
        out.append("")
        out.append("| fed by | accelerators | per round | AU | read MiB/s | vs nginx |")
        out.append("|---|---|---|---|---|---|")
        n = m["results"]["nginx"]["accelerators"]
        names = {"nginx": "nginx", "native": "Granary, native API (307)", "direct": "Granary, direct to the target"}
        for src in ("nginx", "native", "direct"):
            r = m["results"].get(src)
            if not r:
                continue
            out.append("| %s | %s%s | %s | %.1f%% | %s | %s |" % (
                names[src], "%g" % r["accelerators"], " (limit)" if r["at_limit"] else "",
                ", ".join(str(a) for a in r["accelerators_per_round"]), r["au"] * 100,
                "—" if r["read_mib_per_sec"] is None else "{:,.0f}".format(r["read_mib_per_sec"]),
                r2(ratio(r["accelerators"], n), src == "native")))
        counts = sorted({int(n) for r in m["results"].values() for n in r.get("au_by_accelerators", {})})
        if counts:
            out.append("")
            out.append("AU by accelerator count, the mean over every probe of that count (a closer comparison when "
                       "the counts found are equal):")
            out.append("")
            out.append("| fed by | " + " | ".join(str(n) for n in counts) + " |")
            out.append("|---|" + "---|" * len(counts))
            for src in ("nginx", "native", "direct"):
                r = m["results"].get(src)
                if r:
                    au = r.get("au_by_accelerators", {})
                    out.append("| %s | %s |" % (names[src], " | ".join(
                        "%.1f%%" % (au[str(n)] * 100) if str(n) in au else "—" for n in counts)))
        limit = ["`%s`" % k for k in ("nginx", "native", "direct") if m["results"].get(k, {}).get("at_limit")]
        if limit:
            out.append("")
            out.append("(limit): a search passed at its limit, so more accelerators might pass (raise "
                       "`MLPERF_MAX_ACCELERATORS`): %s." % ", ".join(limit))
        other = [x for x in m["diagnostics"]["warnings"] if "at its limit" not in x]
        if other:
            out.append("")
            out.append("Warnings: " + "; ".join(other) + ".")
    else:
        out.append(failed("mlperf_resnet50", "ResNet-50 search"))
    out.append("")

    # machine
    mem = mach.get("mem_total_bytes")
    out.append("Machine: %s vCPUs (%s), %s GiB, Linux %s%s; Java %s, nginx %s, wrk %s, %s. Load average %s at the "
               "start, %s at the end (1, 5, 15 min). wrk, nginx, S3Proxy, the loaders and the Granary nodes share "
               "these cores." % (
                   mach["nproc"], mach["cpu_model"], "%.1f" % (mem / 2**30) if mem else "?", mach["kernel"],
                   " (" + mach["os"] + ")" if mach.get("os") else "", version(mach["java"], r'version "([^"]+)"'),
                   version(mach["nginx"], r"nginx/(\S+)"), version(mach["wrk"], r"wrk (?:debian/)?(\d[^ -]*)"),
                   mach["curl"], mach["loadavg_start"], mach["loadavg_end"]))
    return "\n".join(out) + "\n"

def update_readme(path, md, doc):
    # the markers on lines of their own (the README's prose also names them)
    begin, end = "\n<!-- compare:begin -->\n", "\n<!-- compare:end -->\n"
    text = open(path).read()
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        sys.exit("%s lacks one section between the lines %s and %s" % (path, begin.strip(), end.strip()))
    note = ("<!-- written by bench/compare.sh from bench/compare-latest.json (%s); edits here are overwritten -->"
            % doc["timestamp"])
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path + ".tmp", "w") as f:
        f.write(head + begin + note + "\n\n" + md + end + tail)
    os.replace(path + ".tmp", path)

if sys.argv[1] == "combine":
    combine(sys.argv[2])
elif sys.argv[1] == "render":
    doc = json.load(open(sys.argv[2]))
    md = render(doc)
    with open(sys.argv[3], "w") as f:
        f.write(md)
    if len(sys.argv) > 4:
        update_readme(sys.argv[4], md, doc)
EOF
}

# publish JSON MD: copy to the latest files and the README section
publish() {
  report render "$1" "$here/compare-latest.md.tmp" "$here/README.md" || die "could not update bench/README.md"
  mv "$here/compare-latest.md.tmp" "$here/compare-latest.md"
  cp "$1" "$here/compare-latest.json.tmp" && mv "$here/compare-latest.json.tmp" "$here/compare-latest.json"
  log "updated bench/compare-latest.json, bench/compare-latest.md and the compare section of bench/README.md"
}

if [[ -n "$RENDER_FROM" ]]; then
  md="${RENDER_FROM%.json}.md"
  report render "$RENDER_FROM" "$md" || die "could not render $RENDER_FROM"
  log "rendered $md"
  if [[ "$UPDATE_LATEST" == 1 ]] || { [[ "$UPDATE_LATEST" == auto ]] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if not d["quick"] and sorted(d["parts_run"]) == sorted(sys.argv[2].split()) and d["summary"]["all_parts_ok"] else 1)' "$RENDER_FROM" "$ALL_PARTS"; }; then
    publish "$RENDER_FROM"
  fi
  cat "$md" >&2
  exit 0
fi

# Every part's knobs are checked before the first part runs (mlperf-resnet50.sh checks its own fully).
if [[ " $PARTS " == *" mlperf "* ]]; then
  mapfile -t menv < <(part_env mlperf)
  env "${menv[@]}" CHECK_ONLY=1 BUILD=0 "$here/mlperf-resnet50.sh" || exit 1
fi

# ------------------------------------------------------------------------------------------------ cleanup
CWORK=""
PART_PID=""

# Our processes only: every part's work dir lies under CWORK, and so does every path its processes are given.

cleanup() {
  local rc=$? i left
  trap - EXIT INT TERM
  set +e
  if [[ -n "$PART_PID" ]] && kill -0 "$PART_PID" 2>/dev/null; then
    log "stopping the running part (pid $PART_PID); it stops its own servers"
    kill -TERM "$PART_PID" 2>/dev/null
    for ((i = 0; i < 1200; i++)); do
      kill -0 "$PART_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$PART_PID" 2>/dev/null && kill -KILL "$PART_PID" 2>/dev/null
    wait "$PART_PID" 2>/dev/null
  fi
  end_run "$rc" "$CWORK" "$KEEP"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ------------------------------------------------------------------------------------------------ run
for t in python3 java pgrep git; do command -v "$t" >/dev/null || die "required tool '$t' is missing"; done
T0="$EPOCHREALTIME"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
STARTED="$(date -u '+%Y-%m-%d %H:%M UTC')"
LOADAVG_START="$(cut -d' ' -f1-3 /proc/loadavg)"
COMMAND="$(command_line)"
mkdir -p "$results_dir"
LOGFILE="$results_dir/compare-$STAMP.log"
# Everything on stderr, the parts' progress included, also goes to the log (tee ignores Ctrl-C: it ends with us).
exec 2> >(trap '' INT TERM; exec tee -a "$LOGFILE" >&2)
CWORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-compare.XXXXXX")"
chmod 755 "$CWORK"
mkdir -p "$CWORK/tmp"
log "$COMMAND: parts '$PARTS'$( ((QUICK)) && echo ', QUICK smoke run'); work dir $CWORK, log $LOGFILE"
log "load average at start: $LOADAVG_START (run on an otherwise idle machine; numbers from a loaded one mean little)"

ensure_granary_dist
JAR_MTIME="$(date -u -r "$repo/cli/target/granary.jar" +%Y-%m-%dT%H:%M:%SZ)"
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git_dirty="$(git -C "$repo" status --porcelain 2>/dev/null | grep -v '^??' | sed -n 1p || true)"

failed_parts=()
for part in $ALL_PARTS; do
  [[ " $PARTS " == *" $part "* ]] || continue
  script="$(part_script "$part")"
  mapfile -t penv < <(part_env "$part")
  printf '%s\n' "${penv[@]}" >"$CWORK/$part.env"
  log "part $part: ${penv[*]:-(defaults)} bench/$script"
  : >"$CWORK/$part.log"
  t0="$EPOCHREALTIME"
  rc=0
  # Each part builds nothing (BUILD=0: the jar was built above) and puts its work dir under CWORK. The tee of its
  # stderr names its file relative to CWORK, so that pids_under does not take it for one of the part's processes.
  env "${penv[@]}" BUILD=0 KEEP="$KEEP" TMPDIR="$CWORK/tmp" "$here/$script" >"$CWORK/$part.json" \
    2> >(trap '' INT TERM; cd "$CWORK" && exec tee "$part.log" >&2) &
  PART_PID=$!
  wait "$PART_PID" || rc=$?
  PART_PID=""
  secs="$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$EPOCHREALTIME")"
  echo "$rc $secs" >"$CWORK/$part.status"
  if ((rc == 0)); then
    log "part $part done in ${secs}s"
  else
    failed_parts+=("$part")
    log "part $part FAILED with status $rc after ${secs}s; going on with the next part"
  fi
done
sleep 0.2 # the parts' tee flushes their last lines

result_file="$results_dir/compare-$STAMP.json"
CMP_PARTS="$(for p in $ALL_PARTS; do [[ " $PARTS " != *" $p "* ]] || echo "$p"; done | xargs)"
CMP_TOTAL_S="$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$T0" "$EPOCHREALTIME")"
export CMP_WORK="$CWORK" CMP_PARTS CMP_STAMP="$STAMP" CMP_STARTED="$STARTED" CMP_COMMAND="$COMMAND" \
  CMP_GIT="$git_rev${git_dirty:+-dirty}" CMP_JAR_MTIME="$JAR_MTIME" CMP_LOADAVG_START="$LOADAVG_START" QUICK CMP_TOTAL_S
report combine "$result_file" || die "could not combine the parts' results"
report render "$result_file" "${result_file%.json}.md" || die "could not render the markdown"
log "results written to $result_file and ${result_file%.json}.md"
if [[ "$UPDATE_LATEST" == 1 ]] \
  || [[ "$UPDATE_LATEST" == auto && "$QUICK" == 0 && "$CMP_PARTS" == "$ALL_PARTS" && ${#failed_parts[@]} == 0 ]]; then
  publish "$result_file"
else
  log "bench/compare-latest.* and bench/README.md left as they were (UPDATE_LATEST=$UPDATE_LATEST; QUICK=$QUICK, parts '$CMP_PARTS', failed: '${failed_parts[*]:-}')"
fi
cat "$result_file"
cat "${result_file%.json}.md" >&2
((${#failed_parts[@]} == 0)) || die "failed parts: ${failed_parts[*]} (see $LOGFILE)"
