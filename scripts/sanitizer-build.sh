#!/usr/bin/env bash
# Configures and builds the sanitizer build: clang with AddressSanitizer + UBSan at -O1, and the
# libFuzzer targets in it (FLASHSTEP_FUZZ), so that one build of core serves the sanitizer suite
# and the fuzzers. ./build.sh test and scripts/fuzz.sh both build it here.
#   scripts/sanitizer-build.sh [TARGET...]   (default: everything)
# Environment: ASAN_BUILD_DIR (default build-asan), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ASAN_BUILD_DIR:-build-asan}
# clang: its UBSan checks float-to-int conversions too, which GCC's -fsanitize=undefined leaves
# out, and it built this tree in 5.5 min where GCC 12 took 9.5 (2 cores).
# A tree configured with another compiler (GCC's sanitizer tree of earlier versions) starts over:
# CMake cannot switch a configured tree's compiler.
cache=$build_dir/CMakeCache.txt
if [ -f "$cache" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' "$cache"; then
  echo "sanitizer-build: $build_dir was configured with another compiler; configuring it again with clang++" >&2
  rm -rf "$cache" "$build_dir/CMakeFiles"
fi
cmake -S . -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFLASHSTEP_SANITIZE=ON -DFLASHSTEP_FUZZ=ON -DFLASHSTEP_BENCHMARKS=OFF >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" "${targets[@]}"
