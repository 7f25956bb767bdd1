#!/usr/bin/env bash
# Times the attention shaders on this machine's GPU (Mesa's llvmpipe when there is none) and
# writes the "GPU shaders" section of BENCHMARKS.md, with the renderer, the machine and the date.
# Runs under xvfb-run when there is no display. Extra arguments go to bench_gpu (Google
# Benchmark flags, e.g. --benchmark_filter=naive).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target bench_gpu
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  "$build_dir/bench/bench_gpu" --markdown BENCHMARKS.md "$@"
else
  xvfb-run -a -s "-screen 0 1920x1080x24" "$build_dir/bench/bench_gpu" --markdown BENCHMARKS.md "$@"
fi
