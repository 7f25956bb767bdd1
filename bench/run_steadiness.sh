#!/usr/bin/env bash
# Where FA-2's slow repeats come from: `bench_isa paired` (FA-2 at N = 4096, then the register-only
# loop of the FMA peak, run after run, with each thread's CPU, context switches and steal time)
# for each build given, d = 64 and 128, threads free and pinned, ROUNDS times (default 2).
#
#   bench/run_steadiness.sh BENCH_ISA [BENCH_ISA ...]
#
# THREADS (default 2) sets the threads; PAIRS (default 30) the runs of each set. The machine's CPU,
# topology and load go first. Everything goes to standard output.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: bench/run_steadiness.sh BENCH_ISA [BENCH_ISA ...]" >&2
  exit 2
fi
for b in "$@"; do
  [[ -x $b ]] || { echo "run_steadiness: '$b' is not an executable bench_isa" >&2; exit 2; }
done
export OMP_NUM_THREADS=${THREADS:-2}
pairs=${PAIRS:-30}
echo "== machine"
grep -m1 "model name" /proc/cpuinfo || true
echo "cpus $(nproc), load $(cat /proc/loadavg)"
lscpu 2>/dev/null | grep -Ei "^(thread|core|socket|hypervisor)" || true
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  echo "$(basename "$c") siblings $(cat "$c/topology/thread_siblings_list" 2>/dev/null || echo ?)"
done
for round in $(seq "${ROUNDS:-2}"); do
  for b in "$@"; do
    for d in 64 128; do
      echo "== round $round $b d=$d free"
      "$b" paired "$d" "$pairs"
      echo "== round $round $b d=$d pinned"
      OMP_PROC_BIND=close OMP_PLACES=cores "$b" paired "$d" "$pairs"
    done
  done
done
echo "== load at the end $(cat /proc/loadavg)"
