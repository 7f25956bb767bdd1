#!/usr/bin/env bash
# Times the attention shaders on this machine's GPU (Mesa's llvmpipe when there is none) and
# writes the "GPU shaders" section of BENCHMARKS.md, with the renderer, the machine and the date.
# No display is needed: the context comes from EGL (bench_gpu, like `flashstep run --backend gpu`,
# tries EGL's device platform, then EGL surfaceless, then a hidden GLFW window). Extra arguments
# go to bench_gpu: --max-n N (default 1024 on llvmpipe, 16384 elsewhere) and Google Benchmark
# flags, e.g. --benchmark_filter=naive. On llvmpipe the default run takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target bench_gpu
"$build_dir/bench/bench_gpu" --markdown BENCHMARKS.md "$@"
