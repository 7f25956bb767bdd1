#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time, as
# many at once as there are cores.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# Seeds come from tests/fuzz/corpus/TARGET; new inputs go to a scratch folder, so the
# committed corpus only changes by hand. A finding is written to the current folder as
# crash-*/leak-*/timeout-* and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
CXX=clang++ cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLASHSTEP_FUZZ=ON \
  -DFLASHSTEP_OPENMP=OFF -DFLASHSTEP_TESTS=OFF -DFLASHSTEP_BENCHMARKS=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target fuzz_parse_rows fuzz_scenario fuzz_cli
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Each target fuzzes on one core for SECONDS; as many run at once as there are cores, each
# printing its summary when it ends. A finding fails the script once all have ended.
fuzz_one() {
  local target=$1
  mkdir -p "$scratch/$target"
  set +e
  "$build_dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -print_final_stats=1 "$scratch/$target" "tests/fuzz/corpus/$target" >"$scratch/$target.log" 2>&1
  local status=$?
  set -e
  { echo "fuzz: $target for ${seconds}s"; tail -n 12 "$scratch/$target.log"; } 
  return $status
}
cores=$(nproc)
pids=()
failed=0
for target in parse_rows scenario cli; do
  if [ "${#pids[@]}" -ge "$cores" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
  fuzz_one "$target" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
