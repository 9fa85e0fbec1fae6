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
# A block of N consecutive free TCP ports on 127.0.0.1; prints the first.
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
    base = random.randint(20000, 60000 - n)
    if all(free(base + i) for i in range(n)):
        print(base)
        sys.exit(0)
sys.exit("no block of %d free ports found" % n)
EOF
}
