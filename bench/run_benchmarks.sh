#!/usr/bin/env bash
# Runs the CPU benchmarks and writes their figures into BENCHMARKS.md ("CPU kernels").
# Run it on an otherwise idle machine: the ratios compare figures of the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target bench_cpu
"$build_dir/bench/bench_cpu" --markdown BENCHMARKS.md "$@"
