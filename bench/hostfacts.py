"""The machine facts every bench JSON document records (imported by the scripts' embedded Python)."""
import os
import platform


def _first(path, prefix):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def host_facts():
    mem = _first("/proc/meminfo", "MemTotal:")  # "24589932 kB"
    return {
        "nproc": os.cpu_count(),
        "cpu_model": _first("/proc/cpuinfo", "model name"),
        "mem_total_bytes": int(mem.split()[0]) * 1024 if mem else None,
        "kernel": platform.release(),
    }
