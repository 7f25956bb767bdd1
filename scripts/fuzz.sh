#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitizer build (clang, ASan + UBSan:
# scripts/sanitizer-build.sh) and runs them all at once, each for
# SECONDS of one core's time: with fewer cores than targets they share the cores for longer
# (three targets on two cores: 90 s of wall time, where one after another in pairs took 120 s
# and left a core idle for the last 60).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# Seeds come from tests/fuzz/corpus/TARGET; new inputs go to a scratch folder, so the
# committed corpus only changes by hand. A finding is written to the current folder as
# crash-*/leak-*/timeout-* and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build_dir=${ASAN_BUILD_DIR:-build-asan}
scripts/sanitizer-build.sh fuzz_parse_rows fuzz_scenario fuzz_cli
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
targets=(parse_rows scenario cli)
cores=$(nproc)
# Wall time for SECONDS of CPU each: SECONDS × targets / cores when the cores are fewer.
wall=$seconds
if [ "$cores" -lt "${#targets[@]}" ]; then wall=$(( (seconds * ${#targets[@]} + cores - 1) / cores )); fi
fuzz_one() {
  local target=$1
  mkdir -p "$scratch/$target"
  set +e
  # One thread each: the fuzzers already share the cores, and OpenMP's waiting threads would spin.
  OMP_NUM_THREADS=1 "$build_dir/tests/fuzz/fuzz_$target" -max_total_time="$wall" -max_len=4096 -timeout=10 \
    -print_final_stats=1 "$scratch/$target" "tests/fuzz/corpus/$target" >"$scratch/$target.log" 2>&1
  local status=$?
  set -e
  { echo "fuzz: $target for ${wall}s of wall time (${seconds}s of one core)"; tail -n 12 "$scratch/$target.log"; }
  return $status
}
pids=()
failed=0
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  pids+=($!)
done
# A finding fails the script once all have ended.
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
